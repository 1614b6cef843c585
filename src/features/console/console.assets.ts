/**
 * The console's files as the server holds them. The compiled executable carries them packed in one
 * embedded file (`console.pack`, written by `npm run build`); a server run from source bundles
 * `web/` in memory the first time a console page is asked for (about 20 ms).
 */
import { pagePolicy } from '../../platform/http/security-headers'
import { buildConsole, type ConsoleFile } from './console.build'

/** The console, ready to serve: files by name under `/console/assets/`, and the page. */
export interface ConsoleAssets {
  index: ConsoleFile
  /** The page's Content-Security-Policy (worked out once, from its markup). */
  policy: string
  assets: Map<string, ConsoleFile>
}

/** Name of the packed console inside the executable (Bun adds a content hash before the dot). */
const PACKED = /^console(-[a-z0-9]+)?\.pack$/

/** The packed form: every file, its body in base64 (the pack is read once, at first use). */
interface Pack {
  files: { name: string; type: string; body: string }[]
}

/** Packs built files into the one file the executable embeds. */
export function packConsole(files: ConsoleFile[]): string {
  const pack: Pack = {
    files: files.map((f) => ({ name: f.name, type: f.type, body: Buffer.from(f.body).toString('base64') })),
  }
  return JSON.stringify(pack)
}

function unpack(text: string): ConsoleFile[] {
  return (JSON.parse(text) as Pack).files.map((f) => ({
    name: f.name,
    type: f.type,
    body: new Uint8Array(Buffer.from(f.body, 'base64')),
  }))
}

function assemble(files: ConsoleFile[]): ConsoleAssets {
  const index = files.find((f) => f.name === 'index.html')
  if (!index) throw new Error('the console has no index.html')
  return {
    index,
    policy: pagePolicy(new TextDecoder().decode(index.body)),
    assets: new Map(files.filter((f) => f !== index).map((f) => [f.name, f])),
  }
}

let loading: Promise<ConsoleAssets> | null = null

/** The console's files: embedded in the executable, else bundled from `web/` once a process. */
export function consoleAssets(): Promise<ConsoleAssets> {
  loading ??= (async () => {
    const packed = Bun.embeddedFiles.find((f) => PACKED.test((f as Blob & { name: string }).name))
    return assemble(packed ? unpack(await packed.text()) : await buildConsole())
  })()
  // A failed build is not remembered: the next request tries again (a source file being edited).
  loading.catch(() => {
    loading = null
  })
  return loading
}
