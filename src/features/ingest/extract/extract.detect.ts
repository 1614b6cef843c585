import { fileTypeFromBuffer } from 'file-type'
import { bomEncoding, utf16WithoutBom } from './extract.encoding.ts'
import { extensionOf } from './extract.text-util.ts'
import type { DocumentKind } from './extract.types.ts'
import { checkZip } from './extract.zip.ts'

/** The outcome of detection: a kind extraction can read, or a refusal naming the type. */
export type Detection =
  | { supported: true; kind: DocumentKind; contentType: string }
  | { supported: false; kind: 'unsupported'; typeName: string; contentType: string | null; message: string }

/** The content type each kind is stored and served with. */
export const KIND_CONTENT_TYPES: Record<DocumentKind, string> = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  html: 'text/html',
  markdown: 'text/markdown',
  csv: 'text/csv',
  json: 'application/json',
  text: 'text/plain',
}

/** A kind of file extraction reads: its content type and the file name endings taken for it. */
export interface AcceptedType {
  kind: DocumentKind
  contentType: string
  extensions: string[]
}

/** Every kind of file extraction reads, from this table (what uploads, pushes and sources accept). */
export function acceptedTypes(): AcceptedType[] {
  return (Object.keys(KIND_CONTENT_TYPES) as DocumentKind[]).map((kind) => ({
    kind,
    contentType: KIND_CONTENT_TYPES[kind],
    extensions: Object.keys(BY_EXTENSION).filter((ext) => BY_EXTENSION[ext] === kind),
  }))
}

/** What the refusal message lists as accepted. */
export const SUPPORTED_TYPES_TEXT =
  'PDF, Word (.docx), PowerPoint (.pptx), Excel (.xlsx), HTML, Markdown, CSV/TSV, JSON and plain text'

const BY_EXTENSION: Record<string, DocumentKind> = {
  '.pdf': 'pdf',
  '.docx': 'docx',
  '.docm': 'docx',
  '.dotx': 'docx',
  '.pptx': 'pptx',
  '.pptm': 'pptx',
  '.xlsx': 'xlsx',
  '.xlsm': 'xlsx',
  '.html': 'html',
  '.htm': 'html',
  '.xhtml': 'html',
  '.shtml': 'html',
  '.md': 'markdown',
  '.markdown': 'markdown',
  '.mdown': 'markdown',
  '.mkd': 'markdown',
  '.csv': 'csv',
  '.tsv': 'csv',
  '.json': 'json',
  '.jsonl': 'json',
  '.ndjson': 'json',
  '.txt': 'text',
  '.text': 'text',
}
const BY_CONTENT_TYPE: Record<string, DocumentKind> = {
  'text/html': 'html',
  'application/xhtml+xml': 'html',
  'text/markdown': 'markdown',
  'text/x-markdown': 'markdown',
  'text/csv': 'csv',
  'text/tab-separated-values': 'csv',
  'application/json': 'json',
  'application/x-ndjson': 'json',
}
// [type name, what to do instead]
const LEGACY_OFFICE: Record<string, [string, string?]> = {
  '.doc': ['Word 97-2003 document (.doc)', 'Save it as .docx and upload it again'],
  '.dot': ['Word 97-2003 template (.dot)', 'Save it as .docx and upload it again'],
  '.xls': ['Excel 97-2003 workbook (.xls)', 'Save it as .xlsx and upload it again'],
  '.ppt': ['PowerPoint 97-2003 presentation (.ppt)', 'Save it as .pptx and upload it again'],
  '.msg': ['Outlook message (.msg)'],
}
// Formats that are text underneath but whose text is not what a reader sees.
const REFUSED_TEXT: Record<string, [string, string?]> = {
  '.svg': ['SVG image (.svg)'],
  '.rtf': ['Rich Text Format document (.rtf)', 'Save it as .docx and upload it again'],
}
const ARCHIVES: Record<string, string> = {
  gz: 'gzip archive',
  '7z': '7-Zip archive',
  rar: 'RAR archive',
  tar: 'tar archive',
  bz2: 'bzip2 archive',
  xz: 'xz archive',
}

/** The kind a file name alone suggests (its extension), or undefined. */
export function kindByName(filename: string): DocumentKind | undefined {
  return BY_EXTENSION[extensionOf(filename)]
}

/**
 * Decides how a file will be read, from its content first (magic numbers, zip contents) and its
 * name and declared type second. Binary formats we cannot read are refused with their name
 * ("PNG image (image/png)"); text we do not know by name is taken as plain text.
 */
export async function detectType(
  filename: string,
  bytes: Uint8Array,
  declaredContentType?: string,
): Promise<Detection> {
  const ext = extensionOf(filename)
  const declared = declaredContentType?.split(';')[0]?.trim().toLowerCase() ?? ''
  const named = BY_EXTENSION[ext] ?? BY_CONTENT_TYPE[declared]
  if (bytes.length === 0) return accept(named ?? 'text')
  if (isPdf(bytes)) return accept('pdf')
  const refusedText = REFUSED_TEXT[ext]
  if (refusedText) return refuse(refusedText[0], refusedText[1], null)
  // A text name over bytes that read as text is text, whatever a magic number says: "BM..." is a
  // bitmap's signature and "The widespread..." a QuickTime atom's, but no image or video is
  // printable text from its first byte.
  if (named && TEXT_KINDS.has(named) && readsAsText(bytes)) return accept(named)
  const sniffed = bomEncoding(bytes) ? undefined : await fileTypeFromBuffer(bytes)
  if (sniffed) {
    const { ext: kindExt, mime } = sniffed
    if (kindExt === 'docx' || kindExt === 'pptx' || kindExt === 'xlsx') return accept(kindExt)
    if (kindExt === 'zip') return ooxml(bytes, ext)
    if (kindExt === 'cfb') {
      // An encrypted .docx/.xlsx/.pptx is a compound file: accept it so the per-document error
      // can say "password-protected" instead of "unsupported".
      if (named === 'docx' || named === 'xlsx' || named === 'pptx') return accept(named)
      const [name, hint] = LEGACY_OFFICE[ext] ?? ['Microsoft compound document (legacy Office format)']
      return refuse(name, hint, mime)
    }
    if (kindExt === 'xml')
      return accept(named === 'html' || looksLikeHtml(bytes) ? 'html' : (named ?? 'text'))
    if (!mime.startsWith('text/')) return refuse(describe(kindExt, mime), undefined, mime)
  }
  const legacy = LEGACY_OFFICE[ext]
  if (legacy) return refuse(legacy[0], legacy[1], null)
  if (looksBinary(bytes)) return refuse(ext ? `binary file (${ext})` : 'binary file', undefined, null)
  if (named) return accept(named)
  if (looksLikeHtml(bytes)) return accept('html')
  return accept('text')
}

function accept(kind: DocumentKind): Detection {
  return { supported: true, kind, contentType: KIND_CONTENT_TYPES[kind] }
}

function refuse(typeName: string, hint: string | undefined, contentType: string | null): Detection {
  const advice = hint ? ` ${hint}.` : ''
  const message = `Unsupported file type: ${typeName}.${advice} Supported types: ${SUPPORTED_TYPES_TEXT}.`
  return { supported: false, kind: 'unsupported', typeName, contentType, message }
}

/** A zip is accepted when it is an Office Open XML package, whatever its name says. */
function ooxml(bytes: Uint8Array, ext: string): Detection {
  let names: string[]
  try {
    // Only the listing matters here; the reader checks the expansion against the budget.
    names = checkZip(bytes, Number.POSITIVE_INFINITY)
  } catch {
    return refuse('damaged ZIP archive', undefined, 'application/zip')
  }
  if (names.includes('word/document.xml')) return accept('docx')
  if (names.includes('ppt/presentation.xml')) return accept('pptx')
  if (names.includes('xl/workbook.xml')) return accept('xlsx')
  return refuse(ext && ext !== '.zip' ? `ZIP archive (${ext})` : 'ZIP archive', undefined, 'application/zip')
}

function describe(ext: string, mime: string): string {
  const upper = ext.toUpperCase()
  if (ARCHIVES[ext]) return `${ARCHIVES[ext]} (${mime})`
  if (mime.startsWith('image/')) return `${upper} image (${mime})`
  if (mime.startsWith('audio/')) return `${upper} audio (${mime})`
  if (mime.startsWith('video/')) return `${upper} video (${mime})`
  if (ext === 'exe' || ext === 'dll') return `Windows executable (${mime})`
  if (ext === 'elf') return `Linux executable (${mime})`
  if (mime.includes('opendocument')) return `OpenDocument file (.${ext})`
  return `${upper} file (${mime})`
}

/** PDF readers accept "%PDF-" anywhere in the first kilobyte, so do we. */
function isPdf(bytes: Uint8Array): boolean {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 1024))
  return head.indexOf('%PDF-') !== -1
}

function looksLikeHtml(bytes: Uint8Array): boolean {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 1024)).toString(
    'latin1',
  )
  return /^\s*(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*<(!doctype html|html[\s>])/i.test(head)
}

/** Kinds that are text on disk (read by decoding), as opposed to binary containers. */
const TEXT_KINDS: ReadonlySet<DocumentKind> = new Set(['html', 'markdown', 'csv', 'json', 'text'])

/**
 * Whether the first 8 KB are text: a BOM or UTF-16, or no control character other than tab, line
 * feed, form feed and carriage return (every binary header has some; a few in legacy text would
 * send it to the sniffing, which ends in text anyway when nothing binary is found).
 */
function readsAsText(bytes: Uint8Array): boolean {
  if (bomEncoding(bytes) || utf16WithoutBom(bytes)) return true
  const n = Math.min(bytes.length, 8192)
  for (let i = 0; i < n; i++) {
    const b = bytes[i]!
    if (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0c && b !== 0x0d) return false
    if (b === 0x7f) return false
  }
  return true
}

/** NUL bytes mean binary, unless the text is UTF-16 (which is half zeros for Latin script). */
function looksBinary(bytes: Uint8Array): boolean {
  if (bomEncoding(bytes) || utf16WithoutBom(bytes)) return false
  const n = Math.min(bytes.length, 8192)
  for (let i = 0; i < n; i++) if (bytes[i] === 0) return true
  return false
}
