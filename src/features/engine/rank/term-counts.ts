import { ftsTerm } from '../text/index'

/** Term counts of one generation of a base's index. */
interface BaseCounts {
  baseId: string
  generation: number
  df: Map<string, number>
  prefixes: Map<string, { term: string; doc: number }[]>
  /** Passages in the base's FTS5 table (BM25's N), once counted. */
  rows?: number
  /** Cached counts plus prefix-list entries, for the bound below. */
  entries: number
  /**
   * The base's whole vocabulary (its terms starting with ""), once kept: every count and prefix list
   * of the generation is then answered from it, a term it lacks counting 0. Terms in ascending order.
   */
  all?: readonly { term: string; doc: number }[]
}

// Bound of the term-count cache over all bases (counts and prefix-list entries); past it, it starts again.
const MAX_ENTRIES = 200_000

/**
 * The term counts a repo has read from fts5vocab (passage counts and prefix lists), per base key,
 * kept only for the generation of the base they were read at and bounded over all bases.
 */
export class TermCounts {
  private readonly bases = new Map<number, BaseCounts>()
  private entries = 0

  /** Starts a base's counts afresh unless those kept are of this base at this generation. */
  open(key: number, baseId: string, generation: number): void {
    const c = this.bases.get(key)
    if (c && c.baseId === baseId && c.generation === generation) return
    this.forget(key)
    this.bases.set(key, { baseId, generation, df: new Map(), prefixes: new Map(), entries: 0 })
  }

  /** The kept passage count of a term, if any (0 for a term the kept whole vocabulary lacks). */
  df(key: number, term: string): number | undefined {
    const c = this.bases.get(key)
    const kept = c?.df.get(term)
    if (kept !== undefined || c?.all === undefined) return kept
    // The term as the index holds it (EngineRepo reads a count by ftsToken, which cleans it so).
    const t = ftsTerm(term)
    const at = firstFrom(c.all, t)
    const n = at < c.all.length && c.all[at]!.term === t ? c.all[at]!.doc : 0
    if (this.kept(c, 1)) c.df.set(term, n)
    return n
  }

  /** Keeps a term's passage count for the base's open generation (when there is room). */
  keepDf(key: number, term: string, n: number): void {
    const c = this.bases.get(key)
    if (c && this.kept(c, 1)) c.df.set(term, n)
  }

  /** The kept passage count of the base's FTS5 table, if any. */
  rows(key: number): number | undefined {
    return this.bases.get(key)?.rows
  }

  /** Keeps the passage count of the base's FTS5 table for its open generation; returns it. */
  keepRows(key: number, n: number): number {
    const c = this.bases.get(key)
    if (c) c.rows = n
    return n
  }

  /** The kept terms starting with `prefix`, if any (from the kept whole vocabulary when there is one). */
  prefix(key: number, prefix: string): readonly { term: string; doc: number }[] | undefined {
    const c = this.bases.get(key)
    const kept = c?.prefixes.get(prefix)
    if (kept !== undefined || c?.all === undefined) return kept
    // As EngineRepo reads it: cleaned, and a prefix past U+D7FF read (its range's end is a code point on).
    const p = ftsTerm(prefix)
    if (PAST_D7FF.test(p)) return undefined
    if (p === '') return c.all
    const from = firstFrom(c.all, p)
    let to = from
    while (to < c.all.length && c.all[to]!.term.startsWith(p)) to++
    const terms = c.all.slice(from, to)
    if (this.kept(c, 1 + terms.length)) c.prefixes.set(prefix, terms)
    return terms
  }

  /**
   * Keeps the terms starting with `prefix` for the base's open generation (when there is room). The
   * terms starting with "" are the whole vocabulary: kept in place of the counts and lists read so far
   * (they answer all of them) when in ascending order (as fts5vocab lists them) and within the bound,
   * else as any other list.
   */
  keepPrefix(key: number, prefix: string, terms: readonly { term: string; doc: number }[]): void {
    const c = this.bases.get(key)
    if (!c) return
    if (prefix === '' && ascending(terms) && this.entries - c.entries + terms.length <= MAX_ENTRIES) {
      this.entries += terms.length - c.entries
      Object.assign(c, { all: terms, df: new Map(), prefixes: new Map(), entries: terms.length })
    } else if (this.kept(c, 1 + terms.length))
      c.prefixes.set(prefix, terms as { term: string; doc: number }[])
  }

  /** Drops a base's counts (its index changed). */
  forget(key: number): void {
    const c = this.bases.get(key)
    if (!c) return
    this.entries -= c.entries
    this.bases.delete(key)
  }

  /** Counts `n` more entries kept for `c`; false (and everything dropped) when that would pass the bound. */
  private kept(c: BaseCounts, n: number): boolean {
    if (this.entries + n > MAX_ENTRIES) {
      this.bases.clear()
      this.entries = 0
      return false
    }
    c.entries += n
    this.entries += n
    return true
  }
}

/** A character at or past U+D800 (where JavaScript's order of strings may not be UTF-8's). */
const PAST_D7FF = /[\ud800-\uffff]/

/** The place of the first term >= `term` in ascending `terms` (their length when none is). */
function firstFrom(terms: readonly { term: string }[], term: string): number {
  let lo = 0
  let hi = terms.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (terms[mid]!.term < term) lo = mid + 1
    else hi = mid
  }
  return lo
}

/**
 * Whether terms are strictly ascending as JavaScript compares strings (by UTF-16 code units; fts5vocab
 * lists them by their UTF-8 bytes, the same order unless a term holds a character past U+D7FF).
 */
function ascending(terms: readonly { term: string }[]): boolean {
  for (let i = 1; i < terms.length; i++) if (!(terms[i - 1]!.term < terms[i]!.term)) return false
  return true
}
