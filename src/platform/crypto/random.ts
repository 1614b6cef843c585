/** A source of randomness, injected so tests can make ids and secrets reproducible. */
export interface Random {
  bytes(n: number): Uint8Array
}

/** The operating system's CSPRNG; never `Math.random()`. */
export const cryptoRandom: Random = {
  bytes: (n) => crypto.getRandomValues(new Uint8Array(n)),
}

/** A deterministic generator (xorshift) for tests only; not for secrets in production. */
export function seededRandom(seed = 42): Random {
  let s = seed >>> 0 || 1
  return {
    bytes(n) {
      const out = new Uint8Array(n)
      for (let i = 0; i < n; i++) {
        s ^= s << 13
        s ^= s >>> 17
        s ^= s << 5
        out[i] = s & 0xff
      }
      return out
    },
  }
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

/** `length` base62 characters, each uniformly drawn (rejection sampling avoids modulo bias). */
export function base62(random: Random, length: number): string {
  let out = ''
  while (out.length < length) {
    // An indexed loop: a `for...of` over the bytes measured twice the cost, on every request's id.
    const bytes = random.bytes(length * 2)
    for (let i = 0; i < bytes.length; i++) {
      const b = bytes[i]!
      if (b < 248) out += BASE62[b % 62]
      if (out.length === length) break
    }
  }
  return out
}

/** A prefixed random id such as `ws_4fZ...`: 20 base62 characters, about 119 bits. */
export function newId(random: Random, prefix: string): string {
  return `${prefix}_${base62(random, 20)}`
}

/** Base62 characters of the millisecond in a sortable id: 62^8 ms is about 6,900 years. */
const TIME_CHARS = 8

/**
 * A prefixed id that sorts by when it was made, such as `doc_0OR7n2Ck...`: 8 base62 characters of
 * the millisecond (`nowMs`), then 12 random ones (about 71 bits, unique within the millisecond),
 * the same length as `newId`'s. For rows written in bulk (documents and their sections): their
 * keys land at the end of each B-tree keyed by them rather than all over it, so a commit rewrites a
 * few pages, not one a row, however large the table has grown.
 */
export function newSortableId(random: Random, prefix: string, nowMs: number): string {
  let time = ''
  let rest = Math.max(0, Math.floor(nowMs))
  for (let i = 0; i < TIME_CHARS; i++) {
    time = BASE62[rest % 62] + time
    rest = Math.floor(rest / 62)
  }
  return `${prefix}_${time}${base62(random, 20 - TIME_CHARS)}`
}
