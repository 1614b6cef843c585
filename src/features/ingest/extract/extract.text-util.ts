// Control characters other than tab and newline carry no meaning in extracted text (PDF fonts emit
// NULs, Word exports emit form feeds and vertical tabs) and break JSON consumers downstream.
// biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\ufffe\uffff]/g
/** CONTROL without the global flag: `test` then keeps no position between calls. */
const HAS_CONTROL = new RegExp(CONTROL.source)

/**
 * Normalises newlines, drops control characters, trims line ends and collapses blank runs. Each
 * replacement runs only when its text is there (a search is a third of a replacement's time, and
 * most files need none of them).
 */
export function cleanText(text: string): string {
  let t = text
  if (t.includes('\r')) t = t.replace(/\r\n?/g, '\n')
  if (HAS_CONTROL.test(t)) t = t.replace(CONTROL, '')
  if (t.includes(' \n') || t.includes('\t\n') || t.includes('\u00a0\n'))
    t = t.replace(/[ \t\u00a0]+\n/g, '\n')
  if (t.includes('\n\n\n')) t = t.replace(/\n{3,}/g, '\n\n')
  return t.trim()
}

/** Collapses runs of white space (as HTML rendering does) to one space. */
export function collapseSpaces(text: string): string {
  return text.replace(/[\s\u00a0]+/g, ' ')
}

/** True when the text has at least one letter or digit. */
export function hasWords(text: string): boolean {
  return /[\p{L}\p{N}]/u.test(text)
}

/** The extension of a file name, lower case, with its dot ('' when none). */
export function extensionOf(filename: string): string {
  // The last segment's start, read backwards: no array of segments per file of an upload.
  const start = Math.max(filename.lastIndexOf('/'), filename.lastIndexOf('\\')) + 1
  const dot = filename.lastIndexOf('.')
  return dot > start ? filename.slice(dot).toLowerCase() : ''
}

/** "Page 3" or "Pages 3–5": a title for page-led sections. */
export function pageRangeTitle(
  word: string,
  from: number | undefined,
  to: number | undefined,
): string | null {
  if (from === undefined) return null
  if (to === undefined || to === from) return `${word} ${from}`
  return `${word}s ${from}–${to}`
}
