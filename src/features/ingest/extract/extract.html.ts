import { charsetFromContentType, decodeText } from './extract.encoding.ts'
import { htmlToPieces } from './extract.html-blocks.ts'
import type { ReadResult } from './extract.types.ts'

/**
 * The charset an HTML file declares in its first bytes: `<meta charset>`, the http-equiv form, or
 * an XML declaration (XHTML, inline XBRL). Reading the head as Latin-1 is safe: the declaration
 * itself is ASCII.
 */
export function declaredHtmlCharset(bytes: Uint8Array): string | null {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 4096)).toString(
    'latin1',
  )
  const meta = /<meta[^>]*?charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head)
  if (meta?.[1]) return meta[1].toLowerCase()
  const xml = /^\s*<\?xml[^>]*encoding\s*=\s*["']([\w.:-]+)["']/i.exec(head)
  return xml?.[1] ? xml[1].toLowerCase() : null
}

/** Reads an HTML page: charset from BOM, content type or the page itself; headings kept. */
export function readHtml(bytes: Uint8Array, contentType?: string): ReadResult {
  const declared = charsetFromContentType(contentType) ?? declaredHtmlCharset(bytes)
  const { text, encoding } = decodeText(bytes, declared)
  const { pieces, title } = htmlToPieces(text, { boldHeadings: true })
  return { pieces, title: title ?? pieces.find((p) => p.title)?.title ?? null, encoding }
}
