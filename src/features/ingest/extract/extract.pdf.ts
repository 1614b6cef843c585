import { getDocumentProxy } from 'unpdf'
import { ExtractError, unreadable } from './extract.errors.ts'
import { outlineStarts } from './extract.pdf-outline.ts'
import { cleanText } from './extract.text-util.ts'
import type { Piece, ReadResult } from './extract.types.ts'

// unpdf ships pdf.js built to run without a worker or a DOM, which is what a Bun server needs; the
// text layer comes from pdf.js's own getTextContent, page by page, so page boundaries are exact.

/** A page with fewer letters and digits than this is counted as having no text (scan, image). */
export const PDF_MIN_PAGE_CHARS = 16
/**
 * A PDF whose readable pages are fewer than this share is refused as having no text layer: a
 * scanned book with a born-digital cover would otherwise be "ready" with one page of text.
 */
export const PDF_MIN_READABLE_SHARE = 0.2
// Fonts without a character map make pdf.js return glyph ids as control characters: such a page
// has a text layer that nobody can read, so it counts as having none.
// biome-ignore lint/suspicious/noControlCharactersInRegex: detecting control characters is the point
const GARBAGE = /[\u0000-\u0008\u000b-\u001f\ufffd]/g
const WORD_CHAR = /[\p{L}\p{N}]/gu

interface TextItem {
  str: string
  transform: number[]
  height: number
  hasEOL: boolean
}

/** Reads the text layer of a PDF, one piece per page; refuses encrypted and image-only files. */
export async function readPdf(bytes: Uint8Array): Promise<ReadResult> {
  const doc = await open(bytes)
  try {
    const pieces: Piece[] = []
    const textless: number[] = []
    const unreadable: number[] = []
    let treeFailure: unknown = null
    for (let n = 1; n <= doc.numPages; n++) {
      let raw = ''
      try {
        const page = await doc.getPage(n)
        const content = await page.getTextContent()
        raw = pageText(content.items as (TextItem | object)[])
        page.cleanup()
        if (!isReadable(raw)) textless.push(n)
      } catch (e) {
        // A page that cannot be loaded is counted once, as unreadable, not also as textless.
        unreadable.push(n)
        if (!treeFailure && (isLoop(e) || unreadable.length === doc.numPages)) treeFailure = e
      }
      pieces.push({ title: null, text: cleanText(raw), page: n })
    }
    if (treeFailure) {
      // The page tree itself is broken: it loops back on itself (pdf.js then cannot tell which
      // pages exist), or no page can be found at all. Reading what is left would be a guess.
      throw new ExtractError(
        'corrupt_file',
        'The PDF cannot be read: its list of pages is damaged (it loops back on itself or points to pages that are missing). Open it in a PDF viewer, save or print it to a new PDF and upload that.',
        treeFailure,
      )
    }
    const readable = doc.numPages - textless.length - unreadable.length
    if (readable < Math.max(1, doc.numPages * PDF_MIN_READABLE_SHARE)) {
      throw new ExtractError(
        'pdf_no_text_layer',
        doc.numPages === 1
          ? undefined
          : `Only ${readable} of the ${doc.numPages} pages of this PDF have a readable text layer (the rest are scans, images or fonts without a character map). Run it through OCR and upload it again.`,
      )
    }
    await titleByOutline(pieces, doc)
    const warnings: string[] = []
    if (unreadable.length > 0) warnings.push(`${listPages(unreadable)} could not be read.`)
    if (textless.length > 0) {
      const verb = textless.length === 1 ? 'has' : 'have'
      warnings.push(`${listPages(textless)} ${verb} no readable text (blank, scanned or images only).`)
    }
    return { pieces, pages: doc.numPages, title: await titleOf(doc), warnings, pageWord: 'Page' }
  } finally {
    await doc.destroy()
  }
}

async function open(bytes: Uint8Array) {
  try {
    // pdf.js may take ownership of the buffer it is given: hand it a copy so the caller's bytes survive.
    return await getDocumentProxy(bytes.slice(), {
      verbosity: 0,
      isEvalSupported: false,
      disableFontFace: true,
      useSystemFonts: false,
      stopAtErrors: false,
    })
  } catch (e) {
    const name = (e as { name?: string })?.name
    if (name === 'PasswordException') throw new ExtractError('pdf_encrypted', undefined, e)
    if (name === 'InvalidPDFException') {
      throw new ExtractError('corrupt_file', 'The file is not a valid PDF (its structure cannot be read).', e)
    }
    throw unreadable('The PDF', e)
  }
}

/**
 * Joins the text items of one page. pdf.js marks line ends; a vertical gap clearly wider than the
 * line height starts a new paragraph, so later splitting and chunking can cut between paragraphs.
 * Words hyphenated across a line end are joined again. The text is returned uncleaned so that
 * the caller can judge whether it is readable.
 */
export function pageText(items: (TextItem | object)[]): string {
  let out = ''
  let lastY: number | null = null
  let lastHeight = 0
  let atLineStart = true
  for (const item of items) {
    if (!('str' in item)) continue
    const y = item.transform[5] ?? 0
    const height = item.height || Math.abs(item.transform[3] ?? 0)
    if (atLineStart && lastY !== null && out.length > 0) {
      const gap = Math.abs(lastY - y)
      out += gap > 1.7 * Math.max(height, lastHeight, 1) ? '\n\n' : '\n'
    }
    out += item.str
    if (item.str.trim()) {
      lastY = y
      lastHeight = height
    }
    atLineStart = item.hasEOL
  }
  return out.replace(/(\p{Ll})-\n(\p{Ll})/gu, '$1$2')
}

/**
 * Gives each page the title of the outline entry it belongs to; a page where an entry starts is a
 * strong boundary (a section may start there), other pages are weak ones.
 */
async function titleByOutline(pages: Piece[], doc: Parameters<typeof outlineStarts>[0]): Promise<void> {
  const starts = await outlineStarts(doc)
  let current: string | null = null
  for (const piece of pages) {
    const start = starts.get(piece.page ?? 0)
    if (start) current = start
    piece.title = current
    piece.boundary = start ? 'strong' : 'weak'
  }
}

/** pdf.js's error for a /Pages node listed among its own descendants. */
function isLoop(e: unknown): boolean {
  return /circular reference/i.test(String((e as Error)?.message ?? ''))
}

/** Enough letters or digits, and not mostly glyph ids posing as control characters. */
function isReadable(raw: string): boolean {
  const words = raw.match(WORD_CHAR)?.length ?? 0
  const garbage = raw.match(GARBAGE)?.length ?? 0
  return words >= PDF_MIN_PAGE_CHARS && garbage < words * 0.25
}

/** "Page 3", "Pages 3, 7" or "Pages 1, 2, ... and 40 more". */
function listPages(pages: number[]): string {
  const shown = pages.slice(0, 20).join(', ')
  const list = pages.length > 20 ? `${shown} and ${pages.length - 20} more` : shown
  return `${pages.length === 1 ? 'Page' : 'Pages'} ${list}`
}

async function titleOf(doc: { getMetadata(): Promise<{ info: unknown }> }): Promise<string | null> {
  try {
    const { info } = await doc.getMetadata()
    const title = (info as { Title?: unknown })?.Title
    return typeof title === 'string' && title.trim() ? title.trim() : null
  } catch {
    return null
  }
}
