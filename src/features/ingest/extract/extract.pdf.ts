import { getDocumentProxy } from 'unpdf'
import { ExtractError, unreadable } from './extract.errors.ts'
import { findFurniture } from './extract.pdf-furniture.ts'
import { type LaidPage, layoutPages } from './extract.pdf-layout.ts'
import { type PdfLine, pageLines, type TextItem } from './extract.pdf-lines.ts'
import { outlineStarts } from './extract.pdf-outline.ts'
import type { Piece, ReadResult } from './extract.types.ts'

// unpdf ships pdf.js built to run without a worker or a DOM, which is what a Bun server needs; the
// text layer comes from pdf.js's own getTextContent, page by page, so page boundaries are exact.
// The pages are read whole first: running headers and footers are found by comparing pages.

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

/**
 * Reads the text layer of a PDF: one piece per page, and one more at each heading found on a page;
 * page numbers and running headers and footers left out, lines joined into paragraphs (see
 * extract.pdf-layout.ts). Refuses encrypted and image-only files.
 */
export async function readPdf(bytes: Uint8Array): Promise<ReadResult> {
  const doc = await open(bytes)
  try {
    const pages: PdfLine[][] = []
    const textless: number[] = []
    const unreadable: number[] = []
    let treeFailure: unknown = null
    for (let n = 1; n <= doc.numPages; n++) {
      let lines: PdfLine[] = []
      try {
        const page = await doc.getPage(n)
        const content = await page.getTextContent()
        lines = pageLines(content.items as (TextItem | object)[], n)
        page.cleanup()
        if (!isReadable(lines.map((l) => l.text).join('\n'))) textless.push(n)
      } catch (e) {
        // A page that cannot be loaded is counted once, as unreadable, not also as textless.
        unreadable.push(n)
        if (!treeFailure && (isLoop(e) || unreadable.length === doc.numPages)) treeFailure = e
      }
      pages.push(lines)
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
    const furniture = findFurniture(pages)
    const laid = layoutPages(pages.map((lines) => lines.filter((l) => !furniture.has(l))))
    const pieces = piecesOf(laid.pages, await outlineStarts(doc), laid.headings >= doc.numPages / 3)
    const warnings: string[] = []
    if (unreadable.length > 0) warnings.push(`${listPages(unreadable)} could not be read.`)
    if (textless.length > 0) {
      const verb = textless.length === 1 ? 'has' : 'have'
      warnings.push(`${listPages(textless)} ${verb} no readable text (blank, scanned or images only).`)
    }
    return { pieces, pages: doc.numPages, title: await titleOf(doc), warnings, pageWord: 'Page', paged: true }
  } finally {
    await doc.destroy()
  }
}

/**
 * The pieces sections are cut from: each page's text before its first heading, then one piece per
 * heading. A page where an outline entry starts is a strong boundary titled by the entry; a heading
 * is a weak one; a page break is weak too, unless the document has headings enough to cut at them
 * instead (then a page break cuts only a full section), or the page goes on with the paragraph of
 * the page before (then it is glued to it).
 */
function piecesOf(pages: LaidPage[], outline: Map<number, string>, cutAtHeadings: boolean): Piece[] {
  const pieces: Piece[] = []
  for (const { page, parts, glue } of pages) {
    const chapter = outline.get(page)
    if (parts.length === 0) pieces.push({ title: chapter ?? null, text: '', page })
    parts.forEach((part, i) => {
      const piece: Piece = { title: part.heading, text: part.text, page, boundary: 'weak' }
      if (i === 0 && chapter) {
        piece.title = chapter
        piece.boundary = 'strong'
      } else if (i === 0 && part.heading === null) {
        if (glue !== null) piece.glue = glue
        piece.boundary = glue !== null || cutAtHeadings ? 'none' : 'weak'
      }
      pieces.push(piece)
    })
  }
  return pieces
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
