import { readCsv } from './extract.csv.ts'
import { detectType } from './extract.detect.ts'
import { ExtractError, unreadable } from './extract.errors.ts'
import { readJson } from './extract.json.ts'
import { readMarkdown } from './extract.markdown.ts'
import { pageRanges } from './extract.pages.ts'
import { readPlain } from './extract.plain.ts'
import { type SplitOptions, splitSections } from './extract.sections.ts'
import { hasWords, pageRangeTitle } from './extract.text-util.ts'
import type { DocumentKind, ExtractInput, ExtractResult, ReadResult } from './extract.types.ts'

export {
  type Detection,
  detectType,
  KIND_CONTENT_TYPES,
  kindByName,
  SUPPORTED_TYPES_TEXT,
} from './extract.detect.ts'
export {
  ExtractError,
  type ExtractErrorCode,
  extractErrorTable,
  isExtractError,
  overBudgetMessage,
  tooSlowMessage,
} from './extract.errors.ts'
export { SECTION_MAX_CHARS, SECTION_MIN_CHARS, type SplitOptions, splitSections } from './extract.sections.ts'

/**
 * The version of what extraction records, kept on each document (`documents.extractor_version`).
 * Raise it when documents extracted before should be extracted again: a `force` onboarding run
 * extracts documents with an older version (or none) again. 1: PDF pages (`page_ranges`).
 */
export const EXTRACTOR_VERSION = 1
export type {
  DocumentKind,
  ExtractedSection,
  ExtractInput,
  ExtractResult,
  PageRange,
} from './extract.types.ts'

/** How `extractText` reads: section sizes, and where a PDF is parsed. */
export interface ExtractOptions extends SplitOptions {
  /**
   * Read PDFs on a worker thread (the default), so pdf.js does not hold this thread's event loop.
   * The extraction child process has no event loop to protect and reads them inline.
   */
  pdfThread?: boolean
}

type Reader = (input: ExtractInput, options: ExtractOptions) => ReadResult | Promise<ReadResult>

// The readers of kinds the server never reads in process (extract.sandbox.ts sends them to a child)
// are imported when first used: pdf.js, the HTML parser and the zip readers are not loaded into a
// server that has not read such a file, nor into a child until it is given one.
const READERS: Record<DocumentKind, Reader> = {
  // pdf.js holds the event loop for seconds on a large file: PDFs are read on a worker thread.
  pdf: async (i, o) =>
    o.pdfThread === false
      ? (await import('./extract.pdf.ts')).readPdf(i.bytes)
      : (await import('./extract.pdf-worker-run.ts')).readPdfInWorker(i.bytes),
  docx: async (i) => (await import('./extract.docx.ts')).readDocx(i.bytes, i.memoryMb),
  pptx: async (i) => (await import('./extract.pptx.ts')).readPptx(i.bytes, i.memoryMb),
  xlsx: async (i) => (await import('./extract.xlsx.ts')).readXlsx(i.bytes, i.memoryMb),
  html: async (i) => (await import('./extract.html.ts')).readHtml(i.bytes, i.contentType),
  markdown: (i) => readMarkdown(i.bytes, i.contentType),
  csv: (i) => readCsv(i.bytes, i.filename, i.contentType),
  json: (i) => readJson(i.bytes, i.filename, i.contentType),
  text: (i) => readPlain(i.bytes, i.contentType),
}

/** How a person names each kind of file, for messages. */
const KIND_NAMES: Record<DocumentKind, string> = {
  pdf: 'The PDF',
  docx: 'The Word document',
  pptx: 'The presentation',
  xlsx: 'The workbook',
  html: 'The web page',
  markdown: 'The Markdown file',
  csv: 'The CSV file',
  json: 'The JSON file',
  text: 'The text file',
}

const CFB_MAGIC = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]

/**
 * Extracts the text of one document and splits it into sections, in this process. Throws
 * `ExtractError` when the document cannot be taken (unsupported type, encrypted, no text layer,
 * damaged, empty, too deeply nested); its message is worded for a person and any library's own
 * words stay in its `cause`. A PDF's bytes are handed over (transferred) to the thread that reads
 * it: `input.bytes` may be empty afterwards. The server extracts through `ExtractSandbox`, which
 * runs this in a child process with a memory cap.
 */
export async function extractText(input: ExtractInput, options: ExtractOptions = {}): Promise<ExtractResult> {
  const kind = input.kind ?? (await supportedKind(input))
  if (input.bytes.length === 0) throw new ExtractError('empty_document', 'The file is empty.')
  if (
    (kind === 'docx' || kind === 'xlsx' || kind === 'pptx') &&
    CFB_MAGIC.every((b, i) => input.bytes[i] === b)
  ) {
    throw new ExtractError('office_encrypted')
  }
  let read: ReadResult
  let sections: ExtractResult['sections']
  let text: string
  try {
    read = await READERS[kind](input, options)
    sections = splitSections(read.pieces, options)
    if (read.pageWord) {
      for (const s of sections) s.title ??= pageRangeTitle(read.pageWord, s.page, s.pageEnd)
    }
    // The sidecar: each section is an exact slice of it (ingest records their offsets so).
    text = sections.map((s) => s.text).join('\n\n')
  } catch (e) {
    throw unreadable(KIND_NAMES[kind], e)
  }
  if (!hasWords(text)) throw new ExtractError('empty_document')
  const result: ExtractResult = { kind, text, sections, warnings: read.warnings ?? [] }
  if (read.pages !== undefined) result.pages = read.pages
  if (read.paged && read.pages !== undefined) result.pageRanges = pageRanges(text, sections, read.pages)
  // Where pages start inside sections is what pageRanges is made from, not a section's own fact.
  for (const s of sections) delete s.pageStarts
  if (read.title !== undefined) result.title = read.title
  if (read.encoding !== undefined) result.encoding = read.encoding
  return result
}

/** The kind of a file detectType takes; `ExtractError` `unsupported_type` when it takes none. */
async function supportedKind(input: ExtractInput): Promise<DocumentKind> {
  const detection = await detectType(input.filename, input.bytes, input.contentType)
  if (!detection.supported) throw new ExtractError('unsupported_type', detection.message)
  return detection.kind
}
