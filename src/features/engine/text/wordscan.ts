/**
 * The word scanner every tokeniser of the engine shares. A word is a run of letters and digits
 * (Unicode `\p{L}\p{N}`), continued through an inner apostrophe or period followed by more of them
 * ("Tesla's", "U.S", "3.5") or a comma followed by three digits ("1,000"): the regular expression
 * /[\p{L}\p{N}]+(?:(?:['’.][\p{L}\p{N}]+)|(?:,\d{3}))*\/gu, written out by hand because the engine
 * scans every candidate passage at query time and the expression, with a string made for each
 * match, cost about two thirds of that scan.
 */

/** An index term as the FTS5 index holds it (after the base's key): without punctuation. */
export function ftsTerm(term: string): string {
  return PLAIN.test(term) ? term : term.replace(/[^\p{L}\p{N}]/gu, '')
}
// Most terms are plain lower-case ASCII and need no clean-up.
const PLAIN = /^[a-z0-9]*$/

// Per UTF-16 unit of the Basic Multilingual Plane: 0 not classified yet, 1 letter or digit, 2 neither.
const bmp = new Uint8Array(65536)
for (let c = 0; c < 128; c++)
  bmp[c] = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) ? 1 : 2
const astral = new Map<number, boolean>()
const LETTER_OR_DIGIT = /^[\p{L}\p{N}]$/u

/** UTF-16 units of the letter or digit that starts at `i` (1, or 2 for a surrogate pair); 0 if none does. */
export function wordCharAt(text: string, i: number): number {
  if (i >= text.length) return 0
  const c = text.charCodeAt(i)
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
    const d = text.charCodeAt(i + 1)
    if (d >= 0xdc00 && d <= 0xdfff) {
      const cp = (c - 0xd800) * 0x400 + (d - 0xdc00) + 0x10000
      let yes = astral.get(cp)
      if (yes === undefined) {
        yes = LETTER_OR_DIGIT.test(String.fromCodePoint(cp))
        astral.set(cp, yes)
      }
      return yes ? 2 : 0
    }
  }
  let v = bmp[c]!
  if (v === 0) {
    v = LETTER_OR_DIGIT.test(String.fromCharCode(c)) ? 1 : 2
    bmp[c] = v
  }
  return v === 1 ? 1 : 0
}

function isDigit(text: string, i: number): boolean {
  const c = text.charCodeAt(i)
  return c >= 48 && c <= 57
}

/** FNV-1a over the UTF-16 units of the word `wordEnd` found last (read it before the next call). */
export let wordHash = 0

/** FNV-1a's 32-bit offset basis and prime (the engine's word hashes). */
export const FNV_OFFSET = 0x811c9dc5
export const FNV_PRIME = 16777619

/** Where the run of letters and digits starting at `i` ends, hashing it into `h`. */
function runEnd(text: string, i: number, h: number): number {
  // The end tested first: charCodeAt past it (NaN) left the optimized code on every text's last word.
  const n = text.length
  while (i < n) {
    const c = text.charCodeAt(i)
    // ASCII letters and digits inline; the rest through wordCharAt.
    if (c < 128) {
      if (bmp[c] !== 1) break
      h = Math.imul(h ^ c, FNV_PRIME)
      i++
      continue
    }
    const w = wordCharAt(text, i)
    if (w === 0) break
    h = Math.imul(h ^ c, FNV_PRIME)
    if (w === 2) h = Math.imul(h ^ text.charCodeAt(i + 1), FNV_PRIME)
    i += w
  }
  wordHash = h
  return i
}

/** The end of the word that starts at `start` (which must hold a letter or digit); sets `wordHash`. */
export function wordEnd(text: string, start: number): number {
  let i = runEnd(text, start, FNV_OFFSET)
  for (;;) {
    if (i >= text.length) return i
    const c = text.charCodeAt(i)
    if ((c === 39 || c === 0x2019 || c === 46) && wordCharAt(text, i + 1) > 0) {
      i = runEnd(text, i + 1, Math.imul(wordHash ^ c, FNV_PRIME))
    } else if (c === 44 && isDigit(text, i + 1) && isDigit(text, i + 2) && isDigit(text, i + 3)) {
      let h = wordHash
      for (let j = i; j < i + 4; j++) h = Math.imul(h ^ text.charCodeAt(j), FNV_PRIME)
      wordHash = h
      i += 4
    } else return i
  }
}
