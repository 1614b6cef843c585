/**
 * Bundles the console (`web/`) with `Bun.build`: one minified script and one style sheet with
 * content-hashed names, and the `index.html` that loads them (no inline script or style, so the
 * page's Content-Security-Policy needs no hash). `npm run build` writes the result beside the
 * executable and embeds it; a server run from source builds it in memory on first use.
 */
import { join } from 'node:path'

/** One built file of the console. */
export interface ConsoleFile {
  /** File name under `/console/assets/` (content-hashed), or `index.html`. */
  name: string
  type: string
  body: Uint8Array<ArrayBuffer>
}

/** Where the console's sources live in a checkout. */
export const WEB_DIR = join(import.meta.dir, '../../../web')

/** The page every console path answers: it only loads the bundle. */
export function indexHtml(script: string, style: string | null): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="color-scheme" content="light dark">',
    '<title>Engram</title>',
    '<link rel="icon" href="data:,">',
    style ? `<link rel="stylesheet" href="/console/assets/${style}">` : '',
    `<script type="module" src="/console/assets/${script}"></script>`,
    '</head>',
    '<body><div id="app"></div></body>',
    '</html>',
    '',
  ]
    .filter((l) => l !== '')
    .join('\n')
}

/** Bundles `web/src/main.tsx`; throws with the bundler's messages when it fails. */
export async function buildConsole(webDir = WEB_DIR): Promise<ConsoleFile[]> {
  const result = await Bun.build({
    entrypoints: [join(webDir, 'src/main.tsx')],
    target: 'browser',
    minify: true,
    // Pages' heavy libraries (uPlot) load as chunks when first used, not before the sign-in page paints.
    splitting: true,
    naming: { entry: '[name]-[hash].[ext]', chunk: '[name]-[hash].[ext]', asset: '[name]-[hash].[ext]' },
    define: { 'process.env.NODE_ENV': '"production"' },
  })
  if (!result.success) throw new Error(`the console did not build: ${result.logs.map(String).join('\n')}`)
  const files: ConsoleFile[] = []
  let entry: string | undefined
  for (const out of result.outputs) {
    const name = out.path.replace(/^.*[\\/]/, '')
    if (out.kind === 'entry-point') entry = name
    files.push({ name, type: out.type, body: new Uint8Array(await out.arrayBuffer()) })
  }
  const script = files.find((f) => f.name === entry)
  if (!script) throw new Error('the console build gave no script')
  const style = files.find((f) => f.name.endsWith('.css'))?.name ?? null
  const html = indexHtml(script.name, style)
  files.push({ name: 'index.html', type: 'text/html; charset=utf-8', body: new TextEncoder().encode(html) })
  return files
}
