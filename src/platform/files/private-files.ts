import { chmodSync, closeSync, mkdirSync, openSync, statSync } from 'node:fs'

// The data dir holds the database (password hashes, key hashes, every document's text), the
// objects and the signing secret: nobody but the server's own user has a reason to read any of it.
// Files are created owner-only, and what an older version left readable is tightened at start-up.

/** Mode of the data dir and every folder under it: the owner only. */
export const PRIVATE_DIR_MODE = 0o700
/** Mode of every file under the data dir: read and write by the owner only. */
export const PRIVATE_FILE_MODE = 0o600

/**
 * Sets `path`'s permission bits to `mode` when they differ. Returns false when the path is not
 * this user's to change (EPERM: a folder the operator owns), so the caller can say so; a missing
 * path is left alone.
 */
function tighten(path: string, mode: number): boolean {
  try {
    if ((statSync(path).mode & 0o777) !== mode) chmodSync(path, mode)
    return true
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return true
    if (code === 'EPERM') return false
    throw e
  }
}

/** Creates `dir` (and missing parents) owner-only, or tightens it; false when it cannot be. */
export function privateDir(dir: string): boolean {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE })
  return tighten(dir, PRIVATE_DIR_MODE)
}

/** Tightens an existing file to owner-only (nothing when it does not exist); false when it cannot be. */
export function privateFile(path: string): boolean {
  return tighten(path, PRIVATE_FILE_MODE)
}

/**
 * Creates an empty owner-only file unless one exists (then tightens it). Made before a library
 * creates it with its own default mode: SQLite gives the database 0644 under the usual umask, and
 * its WAL and shared-memory files take the database's mode.
 */
export function createPrivateFile(path: string): boolean {
  closeSync(openSync(path, 'a', PRIVATE_FILE_MODE))
  return privateFile(path)
}
