import { Database } from 'bun:sqlite'
import { existsSync, mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'

// Whether the process that leased a job is still alive, told by a lock only a live process holds.
//
// Each scheduler that starts claiming jobs opens a small SQLite file of its own under the data dir
// and holds an exclusive transaction on it for as long as it lives. The operating system drops
// that lock when the process ends, however it ends (kill -9 included), so another process that can
// take the lock knows the owner is gone and may resume its jobs at once instead of waiting for the
// lease to expire. SQLite's locks are the same POSIX locks on every platform Engram runs on and
// work inside containers on a shared volume, where a pid or a host name says nothing.

/** Lock files of the job owners of one data dir. */
export class OwnerLocks {
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
