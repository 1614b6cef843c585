import { Database } from 'bun:sqlite'
import { existsSync, mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type { PostgresStore } from '../db/store.postgres'
import type { Logger } from '../log/log'

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
}

/**
 * Takes a runner's owner lock as it starts. An advisory one is taken on the network: the runner
 * claims meanwhile (a job claimed in those milliseconds, and recovered by another process that found
 * the lock not yet taken, is refused to this one by the lease's guard). A failure is logged: the
 * runner's leases then only run out, as without a lock.
 */
export function holdOwner(o: { owners?: OwnerLiveness; owner: string; log: Pick<Logger, 'error'> }): void {
  try {
    const held = o.owners?.hold(o.owner)
    if (held)
      held.catch((e) => o.log.error('the owner lock could not be taken', { error: (e as Error).message }))
  } catch (e) {
    o.log.error('the owner lock could not be taken', { error: (e as Error).message })
  }
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
 * which PostgreSQL lets go when that connection ends, however its process ended. An owner whose lock
 * is free is dead. Unlike a lock file, a lock nobody ever took cannot be told from one let go: every
 * process on the database takes its lock before it claims.
 */
export class AdvisoryOwnerLocks implements OwnerLiveness {
  private held: Promise<() => Promise<void>> | null = null

  constructor(private readonly store: PostgresStore) {}

  /** Takes this process's lock for `owner` (once). */
  async hold(owner: string): Promise<void> {
    this.held ??= this.store.holdWhileAlive(keyOf(owner))
    await this.held
  }

  /** Gives the lock up (a clean stop). */
  async release(): Promise<void> {
    const held = this.held
    this.held = null
    if (held) await (await held)()
  }

  async isDead(owner: string): Promise<boolean> {
    return !(await this.store.isHeld(keyOf(owner)))
  }
}

const keyOf = (owner: string) => `engram.owner:${owner}`
