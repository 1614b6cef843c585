import { InvalidObjectKeyError } from './object-store'

/** S3's own limit on key length, in UTF-8 bytes; the local driver keeps the same cap. */
export const MAX_KEY_BYTES = 1024

// Control characters (NUL included) and backslashes: the first can truncate paths in native code,
// the second is a path separator on Windows. Neither has a use in keys we build ourselves.
function hasForbiddenChar(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x20 || c === 0x7f || c === 0x5c) return true
  }
  return false
}
const WORKSPACE_ID = /^[A-Za-z0-9_-]{1,128}$/

/** The reason `s` is not usable as a key or prefix body, or null. Shared by keys and prefixes. */
function problem(s: string): string | null {
  if (new TextEncoder().encode(s).length > MAX_KEY_BYTES) return `longer than ${MAX_KEY_BYTES} bytes`
  if (hasForbiddenChar(s)) return 'contains a control character or a backslash'
  if (s.startsWith('/')) return 'starts with a slash'
  if (s.startsWith('.')) return 'starts with a dot (reserved for the store itself)'
  const segments = s.split('/')
  // A prefix may end with '/', which leaves one empty last segment; no other segment may be empty.
  const inner = s.endsWith('/') ? segments.slice(0, -1) : segments
  for (const seg of inner) {
    if (seg === '') return 'contains an empty path segment'
    if (seg === '.' || seg === '..') return 'contains a "." or ".." segment'
  }
  return null
}

/** Throws `InvalidObjectKeyError` unless `key` names an object that cannot escape the store's root. */
export function assertValidKey(key: string): void {
  if (typeof key !== 'string' || key === '') throw new InvalidObjectKeyError(String(key), 'empty')
  if (key.endsWith('/')) throw new InvalidObjectKeyError(key, 'ends with a slash')
  const p = problem(key)
  if (p) throw new InvalidObjectKeyError(key, p)
}

/** Throws unless `prefix` is a safe listing prefix; the empty prefix lists everything. */
export function assertValidPrefix(prefix: string): void {
  if (typeof prefix !== 'string') throw new InvalidObjectKeyError(String(prefix), 'not a string')
  if (prefix === '') return
  const p = problem(prefix)
  if (p) throw new InvalidObjectKeyError(prefix, p)
}

/**
 * Throws unless `prefix` may be bulk-deleted: non-empty and ending at a segment boundary, so that
 * deleting `ws_1/` can never take `ws_10/` with it.
 */
export function assertDeletablePrefix(prefix: string): void {
  assertValidPrefix(prefix)
  if (prefix === '' || !prefix.endsWith('/')) {
    throw new InvalidObjectKeyError(prefix, 'a deleted prefix must be non-empty and end with a slash')
  }
}

function checkParts(workspaceId: string, parts: string[]): void {
  if (!WORKSPACE_ID.test(workspaceId)) throw new InvalidObjectKeyError(workspaceId, 'not a workspace id')
  for (const part of parts) {
    if (part === '' || part.includes('/')) {
      throw new InvalidObjectKeyError(part, 'a key part must be non-empty and contain no slash')
    }
  }
}

/** The key of an object of a workspace: `<workspaceId>/<part>/<part>...`; every key starts this way. */
export function objectKey(workspaceId: string, ...parts: string[]): string {
  if (parts.length === 0) throw new InvalidObjectKeyError(workspaceId, 'a key needs at least one part')
  checkParts(workspaceId, parts)
  const key = [workspaceId, ...parts].join('/')
  assertValidKey(key)
  return key
}

/** The prefix holding a workspace's objects (or a subtree of them), ending with `/`. */
export function objectPrefix(workspaceId: string, ...parts: string[]): string {
  checkParts(workspaceId, parts)
  const prefix = `${[workspaceId, ...parts].join('/')}/`
  assertValidPrefix(prefix)
  return prefix
}

/**
 * Where objects uploaded straight to the bucket for a base land (upload credentials):
 * `<workspaceId>/corpora/<corpusId>/uploads/`. Inside the base's prefix, so deleting the base takes
 * them, but apart from the objects ingestion writes, so that a tenant holding write credentials can
 * never overwrite a stored raw file or text sidecar.
 */
export function corpusUploadPrefix(workspaceId: string, corpusId: string): string {
  return objectPrefix(workspaceId, 'corpora', corpusId, 'uploads')
}
