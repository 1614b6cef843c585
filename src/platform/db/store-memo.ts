import type { Store } from './store'

/**
 * Rows read by key and reused only until the next commit the store knows of (`store.commits`, on
 * either engine: commit-watch.ts on SQLite, NotifiedCommits on PostgreSQL). Inside a unit it reads
 * the database, so a unit sees its own writes. Only rows that exist are kept, at most `max`.
 */
export class StoreMemo<V> {
  private readonly rows = new Map<string, V>()
  private seen = -1

  constructor(
    private readonly store: Store,
    private readonly read: (key: string) => Promise<V | undefined>,
    private readonly max = 10_000,
  ) {}

  async get(key: string): Promise<V | undefined> {
    if (this.store.inUnit()) return this.read(key)
    // The version is taken before the read: a commit racing the read moves it, and the next call
    // reads again.
    const version = this.store.commits.version()
    if (version !== this.seen) {
      this.rows.clear()
      this.seen = version
    }
    const kept = this.rows.get(key)
    if (kept !== undefined) return kept
    const row = await this.read(key)
    // Kept only if no commit came while it was read.
    if (row !== undefined && this.seen === version && this.rows.size < this.max) this.rows.set(key, row)
    return row
  }

  /**
   * `get` for several keys at once: the rows kept, and those not kept read together by `readMany`
   * (one query for the few an answer cites). Answers the rows that exist, by key.
   */
  async getMany(
    keys: readonly string[],
    readMany: (keys: string[]) => Promise<Map<string, V>>,
  ): Promise<Map<string, V>> {
    if (this.store.inUnit()) return readMany([...keys])
    const version = this.store.commits.version()
    if (version !== this.seen) {
      this.rows.clear()
      this.seen = version
    }
    const found = new Map<string, V>()
    const missing: string[] = []
    for (const key of keys) {
      const kept = this.rows.get(key)
      if (kept !== undefined) found.set(key, kept)
      else missing.push(key)
    }
    if (missing.length === 0) return found
    const read = await readMany(missing)
    // Kept only if no commit came while they were read.
    const keep = this.seen === version
    for (const [key, row] of read) {
      found.set(key, row)
      if (keep && this.rows.size < this.max) this.rows.set(key, row)
    }
    return found
  }
}
