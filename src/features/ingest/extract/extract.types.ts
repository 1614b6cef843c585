/** The document formats text extraction understands. */
export type DocumentKind = 'pdf' | 'docx' | 'pptx' | 'xlsx' | 'html' | 'markdown' | 'csv' | 'json' | 'text'

/** Every supported kind, in the order a person would name them. */
export const DOCUMENT_KINDS: readonly DocumentKind[] = [
  'pdf',
  'docx',
  'pptx',
  'xlsx',
  'html',
  'markdown',
  'csv',
  'json',
  'text',
]

/** What a caller hands to `extractText`. */
export interface ExtractInput {
  bytes: Uint8Array
  /** Relative path or file name as the user named it; its extension steers detection. */
  filename: string
  /** Declared content type (multipart part header, HTTP header); a `charset` parameter is honoured. */
  contentType?: string
  /**
   * The memory budget of this extraction, in MB: an Office file whose XML parts expand past it is
   * refused before anything is unpacked. The process-level cap is `extractInSandbox`'s.
   */
  memoryMb?: number
  /**
   * The file's kind as its upload already detected it from these bytes and this name (detectType),
   * so that a small file read as it is uploaded is not detected again; detected here when absent.
   */
  kind?: DocumentKind
}

/** One section of a document: a heading-led or page-led slice of its text. */
export interface ExtractedSection {
  title: string | null
  text: string
  /** First page (PDF) or slide (PPTX) the section covers, 1-based. */
  page?: number
  /** Last page or slide the section covers, when it spans more than one. */
  pageEnd?: number
  /**
   * Where each page (or slide) the section covers starts in its text, first page first; read by
   * `extractText` to make `pageRanges` and not kept in its result.
   */
  pageStarts?: PageStart[]
}

/** Where a page starts within a text. */
export interface PageStart {
  page: number
  offset: number
}

/**
 * One page of a paged document (PDF) in its text: `text.slice(start, end)` is what the page holds.
 * Offsets count UTF-16 code units, as JavaScript strings do. A page without text (blank, a scan)
 * is empty (`start === end`), placed where the next page starts.
 */
export interface PageRange {
  number: number
  start: number
  end: number
}

/** The text of one document and its sections. */
export interface ExtractResult {
  kind: DocumentKind
  /** The whole text (the sidecar): the sections' texts joined by blank lines. */
  text: string
  /** Page count (PDF), slide count (PPTX) or sheet count (XLSX). */
  pages?: number
  /** Every page of a PDF, in order, as a range of `text`. */
  pageRanges?: PageRange[]
  /** Document title when the format carries one (HTML `<title>`, first heading, ...). */
  title?: string | null
  /** The character encoding the bytes were decoded from, for text formats. */
  encoding?: string
  sections: ExtractedSection[]
  /** Things a user may want to know that did not stop extraction (pages without text, ...). */
  warnings: string[]
}

/** A block of text found by a format reader before sectioning: a heading starts a new piece. */
export interface Piece {
  title: string | null
  text: string
  page?: number
  pageEnd?: number
  /**
   * Whether a section may start here as soon as the current one reaches the minimum size
   * (`strong`: a heading), only once it reaches the target size (`weak`: a page break), or only
   * when the current one could not take the piece whole (`none`: a page in a document whose
   * headings are the better places to cut). Defaults to strong for titled pieces and weak for
   * untitled ones.
   */
  boundary?: 'strong' | 'weak' | 'none'
  /**
   * How the piece joins the one before it when it goes on with its paragraph (a sentence running
   * across a page break): a space, or nothing (a hyphenated word made whole). Absent: a blank line.
   * A section never starts at such a piece unless it must (the section is full).
   */
  glue?: string
}

/** What one format reader hands back before sectioning. */
export interface ReadResult {
  pieces: Piece[]
  pages?: number
  title?: string | null
  encoding?: string
  warnings?: string[]
  /** Word used to title untitled page-led sections ("Page 3", "Slide 2"). */
  pageWord?: string
  /** The pieces' `page` are printed pages (a PDF): the result records where each page lies in the text. */
  paged?: boolean
}
