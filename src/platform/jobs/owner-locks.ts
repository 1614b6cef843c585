import { Database } from 'bun:sqlite'
import { existsSync, mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { systemClock } from '../clock/clock'
import type { PostgresStore } from '../db/store.postgres'
import type { Logger } from '../log/log'
import { ReplicasRepo, replicaOf } from '../replicas/replicas.repo'

// Whether the process that leased a job is still alive, told by a lock only a live process holds.
//
// Each scheduler that starts claiming jobs opens a small SQLite file of its own under the data dir
// and holds an exclusive transaction on it for as long as it lives. The operating system drops
// that lock when the process ends, however it ends (kill -9 included), so another process that can
// take the lock knows the owner is gone and may resume its jobs at once instead of waiting for the
// lease to expire. SQLite's locks are the same POSIX locks on every platform Engram runs on and
// work inside containers on a shared volume, where a pid or a host name says nothing.

/**
 * What tells whether a lease owner's process is alive: it holds its lock while it lives (`hold`),
 * gives it up on a clean stop (`release`), and another process asks `isDead`. Two kinds: lock files
 * of one data dir (OwnerLocks, one machine) and PostgreSQL advisory locks (AdvisoryOwnerLocks, any
 * machine on the database).
 */
export interface OwnerLiveness {
  hold(owner: string): void | Promise<void>
  release(owner: string): void | Promise<void>
  isDead(owner: string): boolean | Promise<boolean>
  /**
   * False while this process's lock is not held though asked for (being taken, or lost with its
   * connection): another process may then take this owner for dead, so its runner claims nothing.
   * Absent: always held once asked for.
   */
  holding?(): boolean
}

/**
 * Takes a runner's owner lock as it starts, then calls `onHeld` (the runner's poke). An advisory one
 * is taken on the network: the runner claims nothing until it is held (`holding`), since another
 * process could take it for dead meanwhile. A failure is logged (and the lock tried again). Resolves
 * once `onHeld` was called or the first try failed (at once for a lock taken at once).
 */
export function holdOwner(
  o: { owners?: OwnerLiveness; owner: string; log: Pick<Logger, 'error'> },
  onHeld: () => void = () => {},
): Promise<void> {
  const failed = (e: unknown) =>
    o.log.error('the owner lock could not be taken', { error: (e as Error).message })
  try {
    const held = o.owners?.hold(o.owner)
    if (held) return held.then(onHeld, failed)
  } catch (e) {
    failed(e)
  }
  return Promise.resolve()
}

/** Lock files of the job owners of one data dir. */
export class OwnerLocks implements OwnerLiveness {
  private held: Database | null = null

  constructor(private readonly dir: string) {}

  /** Takes this process's lock for `owner`; held until `release` or the process ends. */
  hold(owner: string): void {
    if (this.held) return
    mkdirSync(this.dir, { recursive: true })
    const db = new Database(this.fileOf(owner), { create: true })
    db.exec('PRAGMA journal_mode = DELETE')
    db.exec('BEGIN EXCLUSIVE')
    this.held = db
  }

  /** Gives the lock up and removes its file (a clean stop). */
  release(owner: string): void {
    if (!this.held) return
    this.held.exec('ROLLBACK')
    this.held.close()
    this.held = null
    rmSync(this.fileOf(owner), { force: true })
  }

  /**
   * True when `owner` held a lock here and no longer does: its process has ended. An owner with no
   * lock file (another data dir, or a process from before locks) is not known to be dead: its
   * jobs wait for their lease as before.
   */
  isDead(owner: string): boolean {
    const file = this.fileOf(owner)
    if (!existsSync(file)) return false
    let probe: Database | null = null
    try {
      probe = new Database(file)
      probe.exec('PRAGMA busy_timeout = 0')
      probe.exec('BEGIN EXCLUSIVE')
      probe.exec('ROLLBACK')
    } catch {
      // Busy: the owner's process holds the lock, so it is alive.
      probe?.close()
      return false
    }
    probe.close()
    rmSync(file, { force: true })
    return true
  }

  private fileOf(owner: string): string {
    // Owners are made by the scheduler from a pid and random base62; keep the name safe regardless.
    return join(this.dir, `${owner.replace(/[^A-Za-z0-9_-]/g, '_')}.lock`)
  }
}

/**
 * Owners' liveness on PostgreSQL, for processes on several machines sharing one database: each holds
 * a session advisory lock named for its owner on a connection of its own (PostgresStore.holdWhileAlive),
 * which PostgreSQL lets go when that connection ends, however its process ended. Unlike a lock file,
 * a lock nobody ever took cannot be told from one let go, so an owner is dead only when its lock is
 * free and its process has a row in the replicas registry (replicas.repo.ts), written by every
 * process of a build that takes the lock before it claims: an owner with no row (a build before the
 * registry, or one swept after a long silence) is left to its lease. A killed process's row lingers
 * until swept; the lock tells it is gone, the row that it speaks this protocol.
 *
 * Should the lock's connection end while the process lives (a network fault, the backend
 * terminated), the lock is gone with it and others may take this owner for dead: `holding()` says so
 * until the lock is taken again on a new connection (tried at once, then every `retryMs`), and the
 * runners claim nothing meanwhile.
 */
export class AdvisoryOwnerLocks implements OwnerLiveness {
  private state: 'none' | 'taking' | 'held' | 'lost' | 'released' = 'none'
  private owner = ''
  private first: Promise<void> | null = null
  private letGo: (() => Promise<void>) | null = null
  private retry: ReturnType<typeof setTimeout> | null = null
  private readonly registry: Pick<ReplicasRepo, 'has'>

  constructor(
    private readonly store: PostgresStore,
    private readonly o: AdvisoryOptions = {},
  ) {
    this.registry = o.registry ?? new ReplicasRepo(store, systemClock)
  }

  /** Takes this process's lock for `owner` (once); rejects when the first try failed (tried again later). */
  hold(owner: string): Promise<void> {
    if (this.state === 'none' || this.state === 'released') {
      this.owner = owner
      this.state = 'taking'
      this.first = this.take()
    }
    return this.first ?? Promise.resolve()
  }

  /** False while the lock is being taken or was lost and not yet taken again; true otherwise. */
  holding(): boolean {
    return this.state !== 'taking' && this.state !== 'lost'
  }

  /** Gives the lock up (a clean stop), and stops taking it again. */
  async release(): Promise<void> {
    const wasTaken = this.state !== 'none'
    this.state = 'released'
    if (this.retry) clearTimeout(this.retry)
    this.retry = null
    if (wasTaken) await this.first?.catch(() => {})
    const letGo = this.letGo
    this.letGo = null
    await letGo?.()
  }

  async isDead(owner: string): Promise<boolean> {
    if (!(await this.registry.has(replicaOf(owner)))) return false
    return !(await this.store.isHeld(keyOf(owner)))
  }

  /** One try at the lock, on a new connection; on failure another is scheduled. */
  private async take(): Promise<void> {
    const again = this.state === 'lost'
    try {
      const letGo = await this.store.holdWhileAlive(keyOf(this.owner), (e) => this.lost(e))
      if (this.state === 'released') return void (await letGo())
      this.letGo = letGo
      this.state = 'held'
      if (again) this.o.log?.info("this process's owner lock is held again", { owner: this.owner })
    } catch (e) {
      if (this.state === 'released') return
      this.retry = setTimeout(() => void this.take().catch(() => {}), this.o.retryMs ?? 1000)
      throw e
    }
  }

  /** The lock's connection ended: the lock is gone; it is taken again on a new one. */
  private lost(e: Error): void {
    if (this.state !== 'held') return
    this.state = 'lost'
    this.letGo = null
    this.o.log?.error(
      "this process's owner lock was lost with its connection: it claims no jobs or events until the lock is held again",
      { owner: this.owner, error: e.message },
    )
    void this.take().catch(() => {})
  }
}

/** What an AdvisoryOwnerLocks is built with besides its store. */
export interface AdvisoryOptions {
  /** Which owners have a process row (by default the store's replicas registry). */
  registry?: Pick<ReplicasRepo, 'has'>
  /** Where a lost lock and its taking again are logged. */
  log?: Pick<Logger, 'error' | 'info'>
  /** Wait between tries at the lock while it cannot be taken (ms). */
  retryMs?: number
}

const keyOf = (owner: string) => `engram.owner:${owner}`
