import type { ExtractedSection, PageStart, Piece } from './extract.types.ts'

/** A section shorter than this is merged with its neighbour rather than standing alone. */
export const SECTION_MIN_CHARS = 2_000
/**
 * Weak boundaries (page breaks, untitled pieces) only start a new section once the current one has
 * reached this size, so a 600-page manual does not become 600 sections.
 */
export const SECTION_TARGET_CHARS = 12_000
/** No section is longer than this; a document up to this size is a single section. */
export const SECTION_MAX_CHARS = 20_000

/** Size bounds for `splitSections`. */
export interface SplitOptions {
  minChars?: number
  targetChars?: number
  maxChars?: number
}

const SEPARATOR = '\n\n'
// Coarse to fine: paragraphs, lines, sentences, words. A piece with none of these is cut hard.
const BREAKS = ['\n\n', '\n', '. ', ' ']

/**
 * Groups the pieces a reader found (one per heading, page, slide or group of rows) into sections
 * of bounded size: a short document is one section; a heading starts a new section once the
 * current one reaches the minimum, an untitled piece (a page) once it reaches the target; a piece
 * above the maximum is cut at paragraph, line, sentence or word boundaries. Sections keep the
 * first title and the page range they cover.
 */
export function splitSections(pieces: Piece[], options: SplitOptions = {}): ExtractedSection[] {
  const maxChars = Math.max(options.maxChars ?? SECTION_MAX_CHARS, 16)
  const minChars = Math.min(options.minChars ?? SECTION_MIN_CHARS, maxChars)
  const targetChars = Math.min(Math.max(options.targetChars ?? SECTION_TARGET_CHARS, minChars), maxChars)
  const kept = pieces.filter((p) => p.text.trim().length > 0)
  if (kept.length === 0) return []
  const total = kept.reduce((n, p) => n + p.text.length + SEPARATOR.length, -SEPARATOR.length)
  if (total <= maxChars) return [merge(kept, kept.find((p) => p.title !== null)?.title ?? null)]

  const bounded = kept.flatMap((p) => (p.text.length > maxChars ? cutPiece(p, maxChars) : [p]))
  const sections: Piece[][] = []
  let current: Piece[] = []
  let size = 0
  const isStrong = (p: Piece) => (p.boundary ? p.boundary === 'strong' : p.title !== null)
  const isNone = (p: Piece) => p.boundary === 'none' || p.glue !== undefined
  // The small tail of a chapter (its last pages, started at a weak boundary) belongs with that
  // chapter, not with the next one: give it back to the previous section when it fits there.
  const absorbTail = () => {
    const last = sections[sections.length - 1]
    if (!last || isStrong(current[0]!)) return false
    if (textLength(last) + SEPARATOR.length + size > maxChars) return false
    last.push(...current)
    return true
  }
  for (const piece of bounded) {
    if (current.length > 0 && isNone(piece)) {
      if (size + SEPARATOR.length + piece.text.length > maxChars) {
        sections.push(current)
        current = []
        size = 0
      }
    } else if (current.length > 0) {
      const strong = isStrong(piece)
      const full = size >= (strong ? minChars : targetChars)
      const overflow = size + SEPARATOR.length + piece.text.length > maxChars
      if (strong && !full && absorbTail()) {
        current = []
        size = 0
      } else if (full || overflow) {
        sections.push(current)
        current = []
        size = 0
      }
    }
    size = current.length === 0 ? piece.text.length : size + SEPARATOR.length + piece.text.length
    current.push(piece)
  }
  const last = sections[sections.length - 1]
  if (last && size < minChars && textLength(last) + SEPARATOR.length + size <= maxChars) last.push(...current)
  else sections.push(current)
  return titled(sections).map(([group, title]) => merge(group, title))
}

/**
 * Each section's title: the title of the piece it starts with, else the nearest title before it
 * (a section that starts inside a chapter or under a heading takes that heading's name), else the
 * first title inside it.
 */
function titled(sections: Piece[][]): [Piece[], string | null][] {
  let before: string | null = null
  return sections.map((group) => {
    const title = group[0]!.title ?? before ?? group.find((p) => p.title !== null)?.title ?? null
    for (const p of group) if (p.title !== null) before = p.title
    return [group, title]
  })
}

function textLength(pieces: Piece[]): number {
  return pieces.reduce((n, p) => n + p.text.length + SEPARATOR.length, -SEPARATOR.length)
}

function merge(pieces: Piece[], title: string | null): ExtractedSection {
  const first = pieces[0]!
  const lastPiece = pieces[pieces.length - 1]!
  // Pieces are parted by a blank line, unless one goes on with the paragraph before it.
  let text = ''
  const pageStarts: PageStart[] = []
  pieces.forEach((p, i) => {
    if (i > 0) text += p.glue ?? SEPARATOR
    if (p.page !== undefined && (i === 0 || p.page !== pieces[i - 1]!.page)) {
      pageStarts.push({ page: p.page, offset: text.length })
    }
    text += p.text.trim()
  })
  const section: ExtractedSection = { title, text }
  if (first.page !== undefined) section.page = first.page
  const end = lastPiece.pageEnd ?? lastPiece.page
  if (end !== undefined && end !== first.page) section.pageEnd = end
  if (pageStarts.length > 0) section.pageStarts = pageStarts
  return section
}

function cutPiece(piece: Piece, maxChars: number): Piece[] {
  return cutText(piece.text, maxChars, 0).map((text, i) => {
    const part: Piece = {
      ...piece,
      title: i > 0 && piece.title !== null ? `${piece.title} (continued)` : piece.title,
      text,
    }
    if (i > 0) delete part.glue
    return part
  })
}

/** Cuts text into parts of at most maxChars, preferring the coarsest boundary that works. */
export function cutText(text: string, maxChars: number, level = 0): string[] {
  if (text.length <= maxChars) return [text]
  const sep = BREAKS[level]
  if (sep === undefined) return hardCut(text, maxChars)
  const parts: string[] = []
  let current = ''
  for (const segment of text.split(sep)) {
    const candidate = current === '' ? segment : current + sep + segment
    if (candidate.length <= maxChars) {
      current = candidate
      continue
    }
    if (current !== '') parts.push(current)
    if (segment.length > maxChars) {
      const finer = cutText(segment, maxChars, level + 1)
      current = finer.pop() ?? ''
      parts.push(...finer)
    } else {
      current = segment
    }
  }
  if (current !== '') parts.push(current)
  return parts.map((p) => p.trim()).filter((p) => p.length > 0)
}

function hardCut(text: string, maxChars: number): string[] {
  const parts: string[] = []
  let i = 0
  while (i < text.length) {
    let end = Math.min(i + maxChars, text.length)
    // Never split a surrogate pair: the half characters would not survive UTF-8 encoding.
    const code = text.charCodeAt(end - 1)
    if (end < text.length && code >= 0xd800 && code <= 0xdbff) end--
    parts.push(text.slice(i, end))
    i = end
  }
  return parts
}
