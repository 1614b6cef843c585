// Keyset paging of lists: the window a list asks for, its cursor, and the page a list answers.
// Services page with these; the HTTP layer (http/pagination.ts) reads the window from a query.
import { fail } from '../errors/errors'

/** The paging window a list is asked for. */
export interface PageRequest {
  limit: number
  /** Decoded keyset position to continue after, or null for the first page. */
  after: readonly (string | number)[] | null
}

export const PAGE_LIMIT_DEFAULT = 50
export const PAGE_LIMIT_MAX = 500

/** One page of a list: its items, the total, and the cursor of the next page. */
export interface ListResult<T> {
  items: T[]
  total: number
  nextCursor: string | null
}

/** Encodes a keyset position (the sort values of the last row) as an opaque cursor. */
export function encodeCursor(values: readonly (string | number)[]): string {
  return Buffer.from(JSON.stringify(values)).toString('base64url')
}

/** Decodes a cursor made by `encodeCursor`; anything else is a 422 `invalid_cursor`. */
export function decodeCursor(cursor: string): (string | number)[] {
  try {
    const v: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
    if (Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string' || typeof x === 'number')) {
      return v
    }
  } catch {
    // fall through to the refusal below
  }
  throw fail('invalid_cursor')
}

/**
 * The keyset position of a list ordered by a time and an id, `[ms, id]`, from a decoded cursor (null
 * at the start); any other shape is 400 `invalid_cursor`, so a crafted cursor never binds a number to
 * a text column (which PostgreSQL refuses) or the other way round.
 */
export function timeIdCursor(after: readonly (string | number)[] | null): [number, string] | null {
  if (after === null) return null
  const [at, id] = after
  if (after.length !== 2 || typeof at !== 'number' || !Number.isSafeInteger(at) || typeof id !== 'string')
    throw fail('invalid_cursor')
  return [at, id]
}

/**
 * Orders two rows by a time, then an id, oldest first (swap the arguments for newest first). Ids
 * compare by code point, the same on both engines (PostgreSQL's collation may order them otherwise),
 * for rows read without an ORDER BY and sorted here.
 */
export function compareTimeId(xAt: number, xId: string, yAt: number, yId: string): number {
  return xAt - yAt || (xId < yId ? -1 : xId > yId ? 1 : 0)
}

/**
 * Turns `limit + 1` rows fetched in keyset order into a page: the extra row only tells whether a
 * next page exists, and the cursor is the sort key of the last row returned.
 */
export function keysetPage<R, T>(
  rows: R[],
  limit: number,
  keyOf: (row: R) => readonly (string | number)[],
  map: (row: R) => T,
  total: number,
): ListResult<T> {
  const hasMore = rows.length > limit
  const slice = hasMore ? rows.slice(0, limit) : rows
  const last = slice[slice.length - 1]
  return {
    items: slice.map(map),
    total,
    nextCursor: hasMore && last !== undefined ? encodeCursor(keyOf(last)) : null,
  }
}
