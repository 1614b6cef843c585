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

/**
 * Rows of a workspace's security settings (SSO enforcement, the IP allowlist, the KMS key), kept by
 * the workspace's security revision (`workspaces.security_rev`, moved on in the unit of every change
 * of such a row; docs/scale-out.md). On SQLite it is a `StoreMemo` (one process; the commit watch is
 * exact). On PostgreSQL a kept row answers only when asked with the revision it was read at, which
 * the caller read on this request (the request's auth read); asked with another it reads again, so
 * another replica's change applies from the next request that reads its revision, whether or not
 * its notification has come. A row is read after the revision it is kept under, so it is never
 * older than that revision. Rows are also dropped at every commit told, as a `StoreMemo`'s are (a
 * write that moved no revision, an operator's SQL, is still seen a notification later). Asked with
 * no revision (no auth read to go by), it reads through, or with `unversioned: 'memo'` answers as a
 * `StoreMemo` (until the next commit told).
 */
export class RevisionMemo<V> {
  private readonly memo: StoreMemo<V> | null
  private readonly kept = new Map<string, { rev: number | undefined; row: V | undefined }>()
  private readonly unversioned: 'read' | 'memo'
  private seen = -1

  constructor(
    private readonly store: Store,
    private readonly read: (key: string) => Promise<V | undefined>,
    opts: { unversioned?: 'read' | 'memo'; max?: number } = {},
    private readonly max = opts.max ?? 10_000,
  ) {
    this.memo = store.dialect === 'sqlite' ? new StoreMemo(store, read, max) : null
    this.unversioned = opts.unversioned ?? 'read'
  }

  async get(key: string, rev: number | undefined): Promise<V | undefined> {
    if (this.memo) return this.memo.get(key)
    if (this.store.inUnit() || (rev === undefined && this.unversioned === 'read')) return this.read(key)
    const version = this.store.commits.version()
    if (version !== this.seen) {
      this.kept.clear()
      this.seen = version
    }
    const hit = this.kept.get(key)
    if (hit !== undefined && (rev === undefined || hit.rev === rev)) return hit.row
    const row = await this.read(key)
    // Not kept if a commit came while it was read, nor over a newer revision (a request that read
    // an older one, in flight across a change).
    if (this.seen !== version || (rev !== undefined && (hit?.rev ?? -1) > rev)) return row
    if (this.kept.size >= this.max) this.kept.clear()
    this.kept.set(key, { rev, row })
    return row
  }
}
