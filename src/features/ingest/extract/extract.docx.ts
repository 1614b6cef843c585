import { unreadable } from './extract.errors.ts'
import { htmlToPieces } from './extract.html-blocks.ts'
import type { ReadResult } from './extract.types.ts'
import { checkZip } from './extract.zip.ts'

// mammoth turns Word styles into semantic HTML (Heading 1..6 -> h1..h6, lists, tables, footnotes),
// which the shared HTML walker then reads, so sections split at the author's headings. Comments
// are left out (mammoth's default): they are review remarks, not the document's content, and an
// answer quoting "fix this later" from a margin would mislead. Headers and footers are left out
// too (repeated boilerplate). Footnotes and endnotes are kept at the end as "[n] text".
const STYLE_MAP = [
  "p[style-name='Title'] => h1:fresh",
  "p[style-name='Subtitle'] => h2:fresh",
  "p[style-name='heading 1'] => h1:fresh",
  "p[style-name='heading 2'] => h2:fresh",
  "p[style-name='heading 3'] => h3:fresh",
]

// Images are replaced by nothing: base64-encoding every picture of a large handbook only to throw
// it away would cost more than the text itself.

/** Reads a Word .docx file: headings, paragraphs, lists, tables and footnotes. */
export async function readDocx(bytes: Uint8Array, budgetMb?: number): Promise<ReadResult> {
  checkZip(bytes, budgetMb)
  let html: string
  try {
    const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    // Loaded by the first DOCX a process reads (the library is a few MB a server may never need).
    const { default: mammoth } = await import('mammoth')
    const dropImages = mammoth.images.imgElement(async () => ({ src: '' }))
    const result = await mammoth.convertToHtml({ buffer }, { styleMap: STYLE_MAP, convertImage: dropImages })
    html = result.value
  } catch (e) {
    throw unreadable('The Word document', e)
  }
  const { pieces, title } = htmlToPieces(html, { boldHeadings: true })
  return { pieces, title: title ?? pieces.find((p) => p.title)?.title ?? null }
}
