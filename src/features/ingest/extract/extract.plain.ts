import { charsetFromContentType, decodeText } from './extract.encoding.ts'
import { cleanText } from './extract.text-util.ts'
import type { ReadResult } from './extract.types.ts'

/** Reads plain text in UTF-8, UTF-16 (BOM or not) or a legacy encoding detected from the bytes. */
export function readPlain(bytes: Uint8Array, contentType?: string): ReadResult {
  const { text, encoding } = decodeText(bytes, charsetFromContentType(contentType))
  // One piece: the sectioner cuts long text at blank lines, then lines, then sentences.
  return { pieces: [{ title: null, text: cleanText(text) }], encoding }
}
