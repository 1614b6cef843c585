// `Content-Disposition: attachment` for a file a user named (RFC 6266). The name travels twice: as
// `filename*` (RFC 5987: UTF-8, percent-encoded), which browsers prefer, and as a plain ASCII
// `filename` for the clients that know only that one.

// C0 and C1 controls, and the characters that draw nothing or reorder what follows them: in a
// saved file's name "invoice\u202Efdp.exe" reads as "invoiceexe.pdf" in a file manager.
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
const HIDDEN = /[\u0000-\u001f\u007f-\u009f\p{Bidi_Control}\p{Default_Ignorable_Code_Point}]/gu
// What a quoted ASCII name may not hold: quotes and backslashes end or escape it, path separators
// and the characters file systems refuse would be stripped or refused by the client anyway.
const UNSAFE_ASCII = /["\\/:*?<>|]/g

/** The header value that makes a browser save the body under `filename` (its last path segment). */
export function attachmentDisposition(filename: string): string {
  const name = safeName(filename)
  const ascii = asciiFallback(name)
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeRfc5987(name)}`
}

/** The last segment of a path, without hidden characters and surrounding spaces or dots. */
function safeName(filename: string): string {
  const base = filename.split(/[\\/]/).pop() ?? ''
  const clean = base.normalize('NFC').replace(HIDDEN, '').trim().replace(/^\.+/, '')
  return clean || 'download'
}

/** The name in printable ASCII: accents dropped where a letter has a plain form, anything else `_`. */
function asciiFallback(name: string): string {
  const plain = name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[^\x20-\x7e]/g, '_')
    .replace(UNSAFE_ASCII, '_')
    .trim()
  return plain.replace(/^[._\s]+$/, '') || 'download'
}

/** RFC 5987 `value-chars`: unreserved characters as they are, every other byte of UTF-8 as %XX. */
function encodeRfc5987(value: string): string {
  return encodeURIComponent(value).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`,
  )
}
