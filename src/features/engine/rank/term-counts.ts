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

  /** The kept passage count of a term, if any. */
  df(key: number, term: string): number | undefined {
    return this.bases.get(key)?.df.get(term)
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

  /** The kept terms starting with `prefix`, if any. */
  prefix(key: number, prefix: string): { term: string; doc: number }[] | undefined {
    return this.bases.get(key)?.prefixes.get(prefix)
  }

  /** Keeps the terms starting with `prefix` for the base's open generation (when there is room). */
  keepPrefix(key: number, prefix: string, terms: { term: string; doc: number }[]): void {
    const c = this.bases.get(key)
    if (c && this.kept(c, 1 + terms.length)) c.prefixes.set(prefix, terms)
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
