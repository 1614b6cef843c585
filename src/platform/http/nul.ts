// The NUL character (U+0000) in a request's path parameters or body. PostgreSQL's text cannot hold
// it (a query binding one fails, which would answer 500) and SQLite would keep what C code reading it
// cuts short; no id, address or name has one. So a request carrying one there is a 422 before its
// handler runs, the same on both engines. Fields whose format already refuses control characters
// (`name`, `text`: text-formats.ts) say so first, as validation runs before this. Query values are
// left to their routes: a link's token with a NUL is an invalid token, and is only ever hashed.
import { type ValidationIssue, validationFailed } from '../errors/errors'

const MESSAGE = 'Must not contain the NUL character'

/**
 * Throws a 422 naming each path parameter that holds a NUL; a URL can carry one only percent-encoded,
 * so a URL without `%00` is passed at once.
 */
export function refusePathNul(request: Request, params: Record<string, unknown> | undefined): void {
  if (!params || !request.url.includes('%00')) return
  const issues: ValidationIssue[] = []
  for (const [k, v] of Object.entries(params)) {
    if (typeof v === 'string' && v.includes('\0'))
      issues.push({ loc: ['path', k], msg: MESSAGE, type: 'string_unicode' })
  }
  if (issues.length > 0) throw validationFailed(issues)
}

/** How a NUL can appear in a body's bytes: JSON's escape, a form's percent-encoding, the byte itself. */
const SIGNS = ['\\u0000', '%00', '\0']

/**
 * Throws a 422 naming each string of a parsed body (JSON or form) that holds a NUL. The body is
 * walked only when its bytes show a sign of one, so an ordinary body costs a few byte searches.
 */
export function refuseBodyNul(bytes: Uint8Array, body: unknown): void {
  const raw = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  if (!SIGNS.some((sign) => raw.includes(sign))) return
  const issues: ValidationIssue[] = []
  const walk = (v: unknown, loc: (string | number)[]) => {
    if (issues.length >= 20) return
    if (typeof v === 'string') {
      if (v.includes('\0')) issues.push({ loc, msg: MESSAGE, type: 'string_unicode' })
    } else if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) walk(v[i], [...loc, i])
    } else if (typeof v === 'object' && v !== null)
      for (const [k, item] of Object.entries(v)) walk(item, [...loc, k])
  }
  walk(body, ['body'])
  if (issues.length > 0) throw validationFailed(issues)
}
