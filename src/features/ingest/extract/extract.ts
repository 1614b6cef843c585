import { readCsv } from './extract.csv.ts'
import { detectType } from './extract.detect.ts'
import { readDocx } from './extract.docx.ts'
import { ExtractError } from './extract.errors.ts'
import { readHtml } from './extract.html.ts'
import { readJson } from './extract.json.ts'
import { readMarkdown } from './extract.markdown.ts'
import { readPdfInWorker } from './extract.pdf-worker-run.ts'
import { readPlain } from './extract.plain.ts'
import { readPptx } from './extract.pptx.ts'
import { joinPieces, type SplitOptions, splitSections } from './extract.sections.ts'
import { hasWords, pageRangeTitle } from './extract.text-util.ts'
import type { DocumentKind, ExtractInput, ExtractResult, ReadResult } from './extract.types.ts'
import { readXlsx } from './extract.xlsx.ts'

export {
  type Detection,
  detectType,
  KIND_CONTENT_TYPES,
  kindByName,
  SUPPORTED_TYPES_TEXT,
} from './extract.detect.ts'
export { ExtractError, type ExtractErrorCode, extractErrorTable, isExtractError } from './extract.errors.ts'
export { SECTION_MAX_CHARS, SECTION_MIN_CHARS, type SplitOptions, splitSections } from './extract.sections.ts'
export type { DocumentKind, ExtractedSection, ExtractInput, ExtractResult } from './extract.types.ts'

type Reader = (input: ExtractInput) => ReadResult | Promise<ReadResult>

const READERS: Record<DocumentKind, Reader> = {
  // pdf.js holds the event loop for seconds on a large file: PDFs are read on a worker thread.
  pdf: (i) => readPdfInWorker(i.bytes),
  docx: (i) => readDocx(i.bytes),
  pptx: (i) => readPptx(i.bytes),
  xlsx: (i) => readXlsx(i.bytes),
  html: (i) => readHtml(i.bytes, i.contentType),
  markdown: (i) => readMarkdown(i.bytes, i.contentType),
  csv: (i) => readCsv(i.bytes, i.filename, i.contentType),
  json: (i) => readJson(i.bytes, i.filename, i.contentType),
  text: (i) => readPlain(i.bytes, i.contentType),
}

const CFB_MAGIC = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]

/**
 * Extracts the text of one document and splits it into sections. Throws `ExtractError` when the
 * document cannot be taken (unsupported type, encrypted, no text layer, damaged, empty); any other
 * failure inside a format library is reported as `corrupt_file` with the library's words. A PDF's
 * bytes are handed over (transferred) to the thread that reads it: `input.bytes` may be empty afterwards.
 */
export async function extractText(input: ExtractInput, options: SplitOptions = {}): Promise<ExtractResult> {
  const detection = await detectType(input.filename, input.bytes, input.contentType)
  if (!detection.supported) throw new ExtractError('unsupported_type', detection.message)
  const kind = detection.kind
  if (input.bytes.length === 0) throw new ExtractError('empty_document', 'The file is empty.')
  if (
    (kind === 'docx' || kind === 'xlsx' || kind === 'pptx') &&
    CFB_MAGIC.every((b, i) => input.bytes[i] === b)
  ) {
    throw new ExtractError('office_encrypted')
  }
  let read: ReadResult
  try {
    read = await READERS[kind](input)
  } catch (e) {
    if (e instanceof ExtractError) throw e
    throw new ExtractError(
      'corrupt_file',
      `The ${kind} file cannot be read: ${(e as Error)?.message ?? e}`,
      e,
    )
  }
  const sections = splitSections(read.pieces, options)
  if (read.pageWord) {
    for (const s of sections) s.title ??= pageRangeTitle(read.pageWord, s.page, s.pageEnd)
  }
  const text = joinPieces(read.pieces)
  if (!hasWords(text)) throw new ExtractError('empty_document')
  const result: ExtractResult = { kind, text, sections, warnings: read.warnings ?? [] }
  if (read.pages !== undefined) result.pages = read.pages
  if (read.title !== undefined) result.title = read.title
  if (read.encoding !== undefined) result.encoding = read.encoding
  return result
}
