import { and, eq, gt, sql } from 'drizzle-orm'
import type { Clock } from '../clock/clock'
import type { Store } from '../db/store'
import { namedLeases } from './leases.tables'

/** A lease as its row holds it. */
export interface LeaseHolder {
  owner: string
  /** When it lapses (ms). */
  until: number
}

/**
 * Named leases on either engine: one process at a time holds a name until its lease lapses, so work
 * that must run once across replicas (a start-up sweep) or that others must know is alive (a push
 * commit being registered) is guarded by the database every replica shares. Every write is guarded
 * by the owner; the clock is injected, and holders' clocks are assumed to agree within a lease's
 * length (ttls are minutes, so seconds of skew do not matter).
 */
export class NamedLeases {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /**
   * Takes `name` for `owner` for `ttlMs` when it is free, lapsed or already `owner`'s; true when
   * taken. One conditional upsert: on PostgreSQL ON CONFLICT DO UPDATE locks the row and checks the
   * condition on its latest version, so of two processes taking a name at once exactly one wins.
   */
  async take(name: string, owner: string, ttlMs: number): Promise<boolean> {
    const t = this.store.table(namedLeases)
    const now = this.now()
    const rows = await this.store.unit(
      () =>
        this.store.db
          .insert(t)
          .values({ name, owner, until: now + ttlMs })
          .onConflictDoUpdate({
            target: t.name,
            set: { owner, until: now + ttlMs },
            setWhere: sql`${t.until} <= ${now} OR ${t.owner} = ${owner}`,
          })
          .returning({ owner: t.owner }),
      { quiet: true },
    )
    return rows.length === 1
  }

  /**
   * Extends `owner`'s lease on `name` to `ttlMs` from now; false when it is no longer `owner`'s
   * (taken over after it lapsed, or released), in which case the work it guarded must stop.
   */
  async renew(name: string, owner: string, ttlMs: number): Promise<boolean> {
    const t = this.store.table(namedLeases)
    const rows = await this.store.unit(
      () =>
        this.store.db
          .update(t)
          .set({ until: this.now() + ttlMs })
          .where(and(eq(t.name, name), eq(t.owner, owner)))
          .returning({ owner: t.owner }),
      { quiet: true },
    )
    return rows.length === 1
  }

  /** Gives `name` up if `owner` still holds it (a lease taken over since is left to its new owner). */
  async release(name: string, owner: string): Promise<void> {
    const t = this.store.table(namedLeases)
    await this.store.unit(() => this.store.db.delete(t).where(and(eq(t.name, name), eq(t.owner, owner))), {
      quiet: true,
    })
  }

  /** Who holds `name` now, or null when it is free or lapsed. */
  async holder(name: string): Promise<LeaseHolder | null> {
    const t = this.store.table(namedLeases)
    const rows = await this.store.db
      .select({ owner: t.owner, until: t.until })
      .from(t)
      .where(and(eq(t.name, name), gt(t.until, this.now())))
      .limit(1)
    const row = rows[0]
    return row ? { owner: row.owner, until: Number(row.until) } : null
  }

  private now(): number {
    return this.clock.now().getTime()
  }
}
