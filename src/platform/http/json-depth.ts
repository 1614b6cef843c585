/**
 * Deepest nesting of arrays and objects accepted in a JSON body. The API's own shapes nest four
 * levels at most; the bound keeps recursive work on a parsed body (cloning, defaults, validation)
 * far from the stack's limit, whatever a caller sends.
 */
export const MAX_JSON_DEPTH = 64

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_ARRAY = 0x5b
const OPEN_OBJECT = 0x7b
const CLOSE_ARRAY = 0x5d
const CLOSE_OBJECT = 0x7d

/**
 * True when a JSON text nests arrays or objects deeper than `max`. One pass over the characters,
 * brackets inside strings ignored, stopping at the first level past the bound; malformed text is
 * left for the parser to refuse. A string is skipped with `indexOf` (native) rather than character
 * by character: a body's bulk is its strings (an upsert's content, a manifest's paths), and the
 * loop runs on the event loop before every JSON route.
 */
export function jsonTooDeep(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) i = stringEnd(text, i)
    else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > max) return true
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) depth--
  }
  return false
}

/** Where the string opened at `open` ends: its closing quote (one not escaped), or the text's end. */
function stringEnd(text: string, open: number): number {
  let at = open
  for (;;) {
    at = text.indexOf('"', at + 1)
    if (at < 0) return text.length
    // A quote after an odd run of backslashes is escaped; the opening quote stops the count.
    let slashes = 0
    while (text.charCodeAt(at - 1 - slashes) === BACKSLASH) slashes++
    if (slashes % 2 === 0) return at
  }
}
