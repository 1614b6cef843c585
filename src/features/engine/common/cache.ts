/** Options of a warm cache: its byte budget and how to measure an entry. */
export interface WarmCacheOptions<V> {
  budgetBytes: number
  sizeOf: (value: V) => number
}

/**
 * Least-recently-used cache under a byte budget (a Map keeps insertion order, so the first key is the
 * least recently used). Entries are evicted until the total fits; an entry larger than the whole
 * budget is handed back by `getOrLoad` but never kept. Concurrent loads of one key share one load.
 */
export class WarmCache<V> {
  private readonly entries = new Map<string, { value: V; size: number }>()
  private readonly loading = new Map<string, Promise<V>>()
  private total = 0
  private changes = 0
  private readonly stale = new WeakSet<Promise<V>>()
  /** Counters for the operator: hits, misses (loads) and evictions. */
  readonly stats = { hits: 0, misses: 0, evictions: 0 }

  constructor(private readonly opts: WarmCacheOptions<V>) {}

  /** The byte budget. */
  get budget(): number {
    return this.opts.budgetBytes
  }
  /** Bytes held now. */
  get bytes(): number {
    return this.total
  }
  /** Number of entries held. */
  get size(): number {
    return this.entries.size
  }
  /**
   * Counts stores and removals: while it stays the same, every value read before is still held, and
   * no store has happened that could evict by recency (callers holding a list of values use it).
   */
  get version(): number {
    return this.changes
  }
  /** The keys from least to most recently used. */
  keys(): string[] {
    return [...this.entries.keys()]
  }

  /** The size of `key`'s entry when warm, without marking it used; undefined when not held. */
  sizeOf(key: string): number | undefined {
    return this.entries.get(key)?.size
  }

  /** The value for `key` when warm (and marks it most recently used). */
  get(key: string): V | undefined {
    const e = this.entries.get(key)
    if (!e) return undefined
    this.entries.delete(key)
    this.entries.set(key, e)
    this.stats.hits++
    return e.value
  }

  /** Stores a value, then evicts the least recently used entries until the budget holds. */
  set(key: string, value: V): void {
    this.drop(key)
    const size = this.opts.sizeOf(value)
    if (size > this.opts.budgetBytes) return
    this.changes++
    this.entries.set(key, { value, size })
    this.total += size
    for (const [k, e] of this.entries) {
      if (this.total <= this.opts.budgetBytes) break
      this.entries.delete(k)
      this.total -= e.size
      this.changes++
      this.stats.evictions++
    }
  }

  /** Removes an entry; a load of it still in flight will not be stored. Returns whether one was held. */
  delete(key: string): boolean {
    const pending = this.loading.get(key)
    if (pending) this.stale.add(pending)
    this.loading.delete(key)
    return this.drop(key)
  }

  /** The warm value, or the result of `load` (stored when it fits), loading each key once at a time. */
  getOrLoad(key: string, load: () => Promise<V>): Promise<V> {
    const warm = this.get(key)
    if (warm !== undefined) return Promise.resolve(warm)
    const pending = this.loading.get(key)
    if (pending) return pending
    this.stats.misses++
    const p: Promise<V> = load().then(
      (value) => {
        // A delete during the load means the content is gone: hand it back, but do not keep it.
        if (!this.stale.has(p)) this.set(key, value)
        if (this.loading.get(key) === p) this.loading.delete(key)
        return value
      },
      (err) => {
        if (this.loading.get(key) === p) this.loading.delete(key)
        throw err
      },
    )
    this.loading.set(key, p)
    return p
  }

  private drop(key: string): boolean {
    const e = this.entries.get(key)
    if (!e) return false
    this.entries.delete(key)
    this.total -= e.size
    this.changes++
    return true
  }
}
