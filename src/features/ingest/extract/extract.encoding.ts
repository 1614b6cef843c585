import chardet from 'chardet'
import iconv from 'iconv-lite'

/** Text decoded from bytes and the encoding it was decoded from. */
export interface Decoded {
  text: string
  encoding: string
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true })

/** The encoding a byte-order mark names, or null. */
export function bomEncoding(bytes: Uint8Array): string | null {
  const [a, b, c] = bytes
  if (a === 0xef && b === 0xbb && c === 0xbf) return 'utf-8'
  if (a === 0xff && b === 0xfe) return 'utf-16le'
  if (a === 0xfe && b === 0xff) return 'utf-16be'
  return null
}

/** The `charset` parameter of a content type (`text/csv; charset=latin1`), or null. */
export function charsetFromContentType(contentType: string | undefined | null): string | null {
  const m = contentType?.match(/charset\s*=\s*["']?([\w.:-]+)/i)
  return m?.[1] ? m[1].toLowerCase() : null
}

/**
 * Browsers read ISO-8859-1 and US-ASCII labels as windows-1252, and so do we: files labelled
 * latin-1 are in practice cp1252 (curly quotes, euro sign in 0x80..0x9F).
 */
function canonical(label: string): string | null {
  const l = label.trim().toLowerCase()
  if (['iso-8859-1', 'iso8859-1', 'latin1', 'latin-1', 'l1', 'us-ascii', 'ascii', 'cp1252'].includes(l)) {
    return 'windows-1252'
  }
  if (l === 'utf8') return 'utf-8'
  return iconv.encodingExists(l) ? l : null
}

/** The bytes decoded as UTF-8 (a leading BOM dropped), or null when they are not valid UTF-8. */
function strictUtf8Text(bytes: Uint8Array): string | null {
  try {
    return strictUtf8.decode(bytes)
  } catch {
    return null
  }
}

function hasHighBytes(bytes: Uint8Array): boolean {
  for (const b of bytes) if (b >= 0x80) return true
  return false
}

/** UTF-16 without a BOM shows as many zero bytes on one parity (mostly-Latin text). */
export function utf16WithoutBom(bytes: Uint8Array): string | null {
  const n = Math.min(bytes.length, 4096) & ~1
  if (n < 4) return null
  let evenZeros = 0
  let oddZeros = 0
  for (let i = 0; i < n; i += 2) {
    if (bytes[i] === 0) evenZeros++
    if (bytes[i + 1] === 0) oddZeros++
  }
  const half = n / 2
  if (oddZeros > half * 0.4 && evenZeros < half * 0.05) return 'utf-16le'
  if (evenZeros > half * 0.4 && oddZeros < half * 0.05) return 'utf-16be'
  return null
}

/** Best guess for bytes that are not UTF-8: chardet's ranking, else windows-1252. */
function guessLegacy(bytes: Uint8Array): string {
  const sample = bytes.length > 65536 ? bytes.subarray(0, 65536) : bytes
  for (const match of chardet.analyse(sample)) {
    if (match.name.toUpperCase() === 'UTF-8') continue
    const enc = canonical(match.name)
    if (enc) return enc
  }
  return 'windows-1252'
}

/** Decodes with a known encoding, dropping a leading BOM. */
export function decodeAs(bytes: Uint8Array, encoding: string): string {
  if (encoding === 'utf-8') return new TextDecoder('utf-8').decode(bytes)
  return iconv.decode(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), encoding)
}

/**
 * Decodes text of unknown encoding. Order: BOM; the declared charset (content type or an in-file
 * declaration); UTF-16 by its zero bytes; valid UTF-8; chardet's guess among legacy encodings.
 * A declared charset loses when the bytes contradict it: a single-byte label on valid UTF-8 with
 * non-ASCII characters (mislabelled UTF-8 is far more common than legacy text that happens to be
 * valid UTF-8), a UTF-16 label on 8-bit text, a UTF-8 label on bytes that are not UTF-8.
 */
export function decodeText(bytes: Uint8Array, declared?: string | null): Decoded {
  const bom = bomEncoding(bytes)
  if (bom) return { text: decodeAs(bytes, bom), encoding: bom }
  const named = declared ? canonical(declared) : null
  // Valid UTF-8 is decoded once: the check's own decode is the text.
  const asUtf8 = strictUtf8Text(bytes)
  const utf8 = asUtf8 !== null
  const wide = utf16WithoutBom(bytes)
  if (named) {
    const mislabelled =
      (utf8 && hasHighBytes(bytes) && isSingleByte(named)) ||
      (named.startsWith('utf-16') && utf8 && !wide) ||
      (named === 'utf-8' && !utf8)
    if (!mislabelled) {
      const text = named === 'utf-8' && asUtf8 !== null ? asUtf8 : decodeAs(bytes, named)
      return { text, encoding: named }
    }
  }
  // Checked before UTF-8: ASCII in UTF-16 is also valid UTF-8, NULs and all.
  if (wide) return { text: decodeAs(bytes, wide), encoding: wide }
  if (asUtf8 !== null) return { text: asUtf8, encoding: 'utf-8' }
  const guess = guessLegacy(bytes)
  return { text: decodeAs(bytes, guess), encoding: guess }
}

function isSingleByte(encoding: string): boolean {
  return /^(windows-125\d|iso-8859-\d+|koi8-[ru]|cp\d+|macintosh|mac\w*)$/i.test(encoding)
}
