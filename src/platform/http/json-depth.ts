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
 * left for the parser to refuse.
 */
export function jsonTooDeep(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === BACKSLASH) i++
      else if (c === QUOTE) inString = false
    } else if (c === QUOTE) inString = true
    else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > max) return true
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) depth--
  }
  return false
}
