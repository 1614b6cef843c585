import { fail } from '../../../platform/errors/errors'
import { hasControl, isWellFormed } from '../../../platform/http/text-formats'

/** Longest relative path kept for a document, in UTF-8 bytes (S3 keys and most file systems agree). */
export const MAX_PATH_BYTES = 1024
const MAX_SEGMENT_BYTES = 255

const utf8Length = (s: string) => Buffer.byteLength(s, 'utf8')

/** The reason a path cannot name a document, or null. */
function problem(raw: string, normal: string, segments: string[]): string | null {
  if (raw.trim() === '') return 'is empty'
  // C0 and C1 control characters (NUL included) have no place in a file name and confuse logs.
  if (hasControl(raw)) return 'contains a control character'
  if (!isWellFormed(raw)) return 'is not valid Unicode (an unpaired surrogate)'
  if (raw.startsWith('/') || raw.startsWith('\\') || /^[A-Za-z]:/.test(raw)) return 'is absolute'
  if (segments.includes('..')) return 'contains a ".." segment'
  if (segments.length === 0) return 'names no file'
  if (utf8Length(normal) > MAX_PATH_BYTES) return `is longer than ${MAX_PATH_BYTES} bytes`
  if (segments.some((s) => utf8Length(s) > MAX_SEGMENT_BYTES))
    return `has a segment longer than ${MAX_SEGMENT_BYTES} bytes`
  return null
}

/**
 * The canonical relative path of a document: separators become `/`, empty and `.` segments go,
 * Unicode is NFC (macOS sends decomposed names). Absolute paths, `..` segments and control
 * characters are refused with 422 `invalid_path`, so no path can point outside its base.
 */
export function normalizePath(raw: string, loc: (string | number)[] = ['body', 'path']): string {
  const segments = raw
    .normalize('NFC')
    .replace(/\\/g, '/')
    .split('/')
    .filter((s) => s !== '' && s !== '.')
  const normal = segments.join('/')
  const why = problem(raw, normal, segments)
  if (why) {
    const shown = JSON.stringify(raw.slice(0, 200))
    throw fail('invalid_path', `The path ${shown} ${why}.`, [
      { loc, msg: `The path ${why}`, type: 'invalid_path' },
    ])
  }
  return normal
}

/** A folder prefix (`a/b/`) for manifests scoped to a sub-folder; '' means the whole base. */
export function normalizePrefix(raw: string | undefined): string {
  if (raw === undefined || raw === '') return ''
  return `${normalizePath(raw, ['body', 'prefix'])}/`
}
