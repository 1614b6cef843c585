import { asc, eq, lt, sql } from 'drizzle-orm'
import type { Clock } from '../clock/clock'
import type { Store } from '../db/store'
import { replicas } from './replicas.tables'

/** A process of the fleet as its row holds it (times in ms). */
export interface Replica {
  owner: string
  host: string
  pid: number
  build: string
  startedAt: number
  seenAt: number
}

/** What a process says of itself: its row without the time it was last seen. */
export type ReplicaSelf = Omit<Replica, 'seenAt'>

/**
 * The replicas registry on either engine (docs/scale-out.md, "Jobs and the outbox dispatcher,
 * shared"): each process that runs jobs or serves writes its row, stamps it while it lives, and
 * deletes it on a clean stop; rows no process stamps any more are swept by those that do. Every
 * write is one statement in a quiet unit (no memo depends on this table); the clock is injected.
 */
export class ReplicasRepo {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /**
   * Writes `self`'s row seen now: inserted when missing (at start, or again after others swept it
   * while this process could not reach the database), else only its `seen_at` moved.
   */
  async stamp(self: ReplicaSelf): Promise<void> {
    const t = this.store.table(replicas)
    const seenAt = this.now()
    await this.store.unit(
      () =>
        this.store.db
          .insert(t)
          .values({ ...self, seenAt })
          .onConflictDoUpdate({ target: t.owner, set: { seenAt } }),
      { quiet: true },
    )
  }

  /** Deletes the rows last seen before `before` (ms): processes gone without a clean stop; how many. */
  async sweep(before: number): Promise<number> {
    const t = this.store.table(replicas)
    const gone = await this.store.unit(
      () => this.store.db.delete(t).where(lt(t.seenAt, before)).returning({ owner: t.owner }),
      { quiet: true },
    )
    return gone.length
  }

  /** Deletes `owner`'s row (its clean stop). */
  async remove(owner: string): Promise<void> {
    const t = this.store.table(replicas)
    await this.store.unit(() => this.store.db.delete(t).where(eq(t.owner, owner)), { quiet: true })
  }

  /** Whether `owner` has a row: a process of a build that keeps the registry (and its owner lock). */
  async has(owner: string): Promise<boolean> {
    const t = this.store.table(replicas)
    const rows = await this.store.db
      .select({ one: sql<number>`1` })
      .from(t)
      .where(eq(t.owner, owner))
      .limit(1)
    return rows.length > 0
  }

  /** The fleet, oldest process first. */
  async list(): Promise<Replica[]> {
    const t = this.store.table(replicas)
    const rows = await this.store.db.select().from(t).orderBy(asc(t.startedAt), asc(t.owner))
    return rows.map((r) => ({
      ...r,
      pid: Number(r.pid),
      startedAt: Number(r.startedAt),
      seenAt: Number(r.seenAt),
    }))
  }

  private now(): number {
    return this.clock.now().getTime()
  }
}

/**
 * The owner a runner's leases carry is its process's (the scheduler's) or that with this suffix
 * (the dispatcher's, so that either can be told dead on its own); the registry has the process's.
 */
const EVENTS_SUFFIX = '_events'

/** The dispatcher's lease owner for a process's owner. */
export const eventsOwner = (owner: string): string => `${owner}${EVENTS_SUFFIX}`

/** The process owner (its registry row's) of a runner's lease owner. */
export const replicaOf = (runner: string): string =>
  runner.endsWith(EVENTS_SUFFIX) ? runner.slice(0, -EVENTS_SUFFIX.length) : runner
