/**
 * The API reference page (`/docs`) and the viewer it runs: Swagger UI (`swagger-ui-dist`, SmartBear's
 * prebuilt bundle). Its script and style sheet are imported as files, so the compiled executable
 * embeds them and the page works air-gapped: nothing is loaded from another origin.
 */

import viewerStyle from 'swagger-ui-dist/swagger-ui.css' with { type: 'file' }
import viewerScript from 'swagger-ui-dist/swagger-ui-bundle.js' with { type: 'file' }
import { sha256Hex } from '../../platform/crypto/hash'
import { pagePolicy } from '../../platform/http/security-headers'
import docsPage from './docs.html' with { type: 'text' }

/** One file of the viewer, served under `/docs/assets/`. */
export interface DocsAsset {
  type: string
  body: Uint8Array<ArrayBuffer>
}

/** The reference page, its Content-Security-Policy, and the viewer's files by content-hashed name. */
export interface DocsViewer {
  page: string
  policy: string
  assets: Map<string, DocsAsset>
}

/** Where the viewer's files are served; the page names them with their content hash. */
export const DOCS_ASSETS = '/docs/assets/'

// The style sheet names a source map that is not shipped; a browser's developer tools would ask for it.
const SOURCE_MAP = /\/\*# sourceMappingURL=[^*]*\*\/\s*$/

async function load(): Promise<DocsViewer> {
  const script = await Bun.file(viewerScript).text()
  const style = (await Bun.file(viewerStyle).text()).replace(SOURCE_MAP, '')
  const assets = new Map<string, DocsAsset>()
  const add = (stem: string, ext: string, type: string, text: string) => {
    const name = `${stem}.${sha256Hex(text).slice(0, 12)}.${ext}`
    assets.set(name, { type, body: new TextEncoder().encode(text) })
    return `${DOCS_ASSETS}${name}`
  }
  const page = (docsPage as unknown as string)
    .replace('{{script}}', add('swagger-ui-bundle', 'js', 'text/javascript; charset=utf-8', script))
    .replace('{{style}}', add('swagger-ui', 'css', 'text/css; charset=utf-8', style))
  // Its own inline script and style by hash, the viewer's files from this origin, requests (the
  // document, "Try it out") to this origin only.
  return { page, policy: pagePolicy(page), assets }
}

let loading: Promise<DocsViewer> | null = null

/** The reference page and the viewer's files, read once a process (about 2 MB, on first use). */
export function docsViewer(): Promise<DocsViewer> {
  loading ??= load()
  loading.catch(() => {
    loading = null
  })
  return loading
}
