import { and, eq, lte, sql } from 'drizzle-orm'
import type { Store } from '../db/store'
import { idempotencyKeys } from './idempotency.tables'

/**
 * A stored outcome as `read` gives it. Its state is `pending` while a request holds the claim;
 * `done` with its answer for replay; `spent` when the answer carried a secret: only the fact that
 * the key was used is kept, never the answer.
 */
export type Outcome = Pick<
  typeof idempotencyKeys.$inferSelect,
  'requestHash' | 'state' | 'status' | 'headers' | 'body' | 'expiresAt' | 'owner'
>

/** What a run's outcome writes on its record. */
export type Settled = Pick<typeof idempotencyKeys.$inferInsert, 'state' | 'status' | 'headers' | 'body'>

/** A claim as its owner holds it: the record's (scope, key) and the claim's owner name. */
export interface Claim {
  scope: string
  key: string
  owner: string
}

/** The records' writes are quiet units: no memo keeps these rows, so none is emptied by them. */
const QUIET = { quiet: true }

/**
 * The rows of `idempotency_keys`, on either engine. Every write to a claimed record is guarded by
 * its owner, so once a claim is taken over, its former owner's writes (an outcome, a release, a
 * renewal) change nothing.
 */
export class IdempotencyRecords {
  constructor(private readonly store: Store) {}

  /**
   * Claims (scope, key) for `c.owner` until `until`: a new record, or one whose expiry has passed
   * taken over (a record kept past its TTL, or a pending claim its owner stopped renewing). False
   * when a live record holds the key (pending, done or spent).
   */
  async claim(c: Claim, requestHash: string, now: number, until: number): Promise<boolean> {
    const t = this.store.table(idempotencyKeys)
    const fresh = { requestHash, state: 'pending' as const, owner: c.owner, createdAt: now, expiresAt: until }
    // One statement: the insert, or on the key's conflict an update guarded by the record's expiry;
    // on PostgreSQL the conflict locks the row and the guard is checked against its latest version,
    // so of two requests taking over one expired record, one does. Not an insert caught with
    // isUniqueViolation: that would roll a unit back on every duplicate, and on SQLite a synchronous
    // write of a route not yet on the store, run between the unit's queries, is on the unit's
    // connection and would be rolled back with it.
    const claimed = await this.store.unit(
      () =>
        this.store.db
          .insert(t)
          .values({ scope: c.scope, key: c.key, ...fresh })
          .onConflictDoUpdate({
            target: [t.scope, t.key],
            set: { ...fresh, status: null, headers: null, body: null },
            setWhere: lte(t.expiresAt, now),
          })
          .returning({ key: t.key }),
      QUIET,
    )
    return claimed.length > 0
  }

  /** The record of (scope, key), or undefined. */
  async read(scope: string, key: string): Promise<Outcome | undefined> {
    const t = this.store.table(idempotencyKeys)
    const rows = await this.store.db
      .select({
        requestHash: t.requestHash,
        state: t.state,
        status: t.status,
        headers: t.headers,
        body: t.body,
        expiresAt: t.expiresAt,
        owner: t.owner,
      })
      .from(t)
      .where(and(eq(t.scope, scope), eq(t.key, key)))
    return rows[0]
  }

  /** Stores a run's outcome on its claim, kept until `until`; false when the claim is no longer its owner's. */
  async settle(c: Claim, set: Settled, until: number): Promise<boolean> {
    const t = this.store.table(idempotencyKeys)
    const rows = await this.store.unit(
      () =>
        this.store.db
          .update(t)
          .set({ ...set, expiresAt: until })
          .where(this.held(c))
          .returning({ key: t.key }),
      QUIET,
    )
    return rows.length > 0
  }

  /** Lets a claim go, when still its owner's: the next request with the key runs. */
  async release(c: Claim): Promise<void> {
    const t = this.store.table(idempotencyKeys)
    await this.store.unit(() => this.store.db.delete(t).where(this.held(c)), QUIET)
  }

  /** Moves the expiry of each claim still its owner's to `until`; answers how many moved. */
  async renew(claims: Claim[], until: number): Promise<number> {
    if (claims.length === 0) return 0
    const t = this.store.table(idempotencyKeys)
    // One keyed update a claim, in one unit: each finds its row by the primary key.
    return this.store.unit(async () => {
      let renewed = 0
      for (const c of claims) {
        const rows = await this.store.db
          .update(t)
          .set({ expiresAt: until })
          .where(this.held(c))
          .returning({ key: t.key })
        renewed += rows.length
      }
      return renewed
    }, QUIET)
  }

  /** Deletes up to `batch` records expired at `now` (the oldest first); answers how many. */
  async sweep(now: number, batch: number): Promise<number> {
    const t = this.store.table(idempotencyKeys)
    const gone = await this.store.unit(() => {
      const expired = this.store.db
        .select({ scope: t.scope, key: t.key })
        .from(t)
        .where(lte(t.expiresAt, now))
        .orderBy(t.expiresAt)
        .limit(batch)
      return this.store.db
        .delete(t)
        .where(sql`(${t.scope}, ${t.key}) in ${expired}`)
        .returning({ key: t.key })
    }, QUIET)
    return gone.length
  }

  /** The condition of a claim still held: its record, pending, owned by its owner. */
  private held(c: Claim) {
    const t = this.store.table(idempotencyKeys)
    return and(eq(t.scope, c.scope), eq(t.key, c.key), eq(t.state, 'pending'), eq(t.owner, c.owner))
  }
}
