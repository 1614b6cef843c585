import type { Clock } from '../clock/clock'
import { newId, type Random } from '../crypto/random'
import type { Store } from '../db/store'
import { HeldLease } from './held-lease'
import { NamedLeases } from './leases.repo'

/**
 * Runs work one at a time per key (a customer, a workspace), in the order it was asked for, in
 * this process: the next piece starts when the one before it has settled, failed or not.
 */
export class KeyedQueue {
  private readonly tails = new Map<string, Promise<unknown>>()

  /** Runs `work` after the key's earlier work has settled. */
  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const before = this.tails.get(key) ?? Promise.resolve()
    const run = before.then(work, work)
    const tail = run.catch(() => undefined)
    this.tails.set(key, tail)
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key)
    })
    return run
  }
}

/**
 * How long a key's lease lasts unless renewed: work renews it between its steps (`HeldLease.keep`,
 * once a third has gone), so one step (a Stripe call) may take forty seconds before another process
 * may take the key over; a process that died holds it no longer than this.
 */
export const SERIAL_LEASE_MS = 60_000
/** How long work waits by default for a key another process holds before it is refused (`LeasedQueueDeps.busy`). */
export const SERIAL_WAIT_MS = 5_000
/** The first pause between two tries of a held key, doubled up to `MAX_PAUSE_MS`. */
const FIRST_PAUSE_MS = 50
const MAX_PAUSE_MS = 1_000

/** What a `LeasedQueue` works with; `sleep` waits real time unless a test steps its clock instead. */
export interface LeasedQueueDeps {
  store: Store
  clock: Clock
  random: Random
  sleep?: (ms: number) => Promise<void>
  /** The error work is refused with once the key has been held elsewhere for `waitMs`. */
  busy: () => Error
  /** How long to wait for a key another process holds (`SERIAL_WAIT_MS` by default). */
  waitMs?: number
  /** How long a key's lease lasts unless renewed (`SERIAL_LEASE_MS` by default). */
  leaseMs?: number
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/**
 * Runs work one at a time per key across every process on the database: in order within this
 * process (a `KeyedQueue`), and under the named lease `<prefix>:<key>` across processes, taken
 * before the work and released after it. Work is given the lease to renew between its steps. A
 * key another process holds is tried again with growing pauses for `waitMs` (the injected clock's),
 * then refused with `busy()` (billing's 409 `billing_in_progress`) and nothing done.
 */
export class LeasedQueue {
  private readonly queue = new KeyedQueue()
  private readonly leases: NamedLeases
  private readonly sleep: (ms: number) => Promise<void>

  constructor(
    private readonly prefix: string,
    private readonly d: LeasedQueueDeps,
  ) {
    this.leases = new NamedLeases(d.store, d.clock)
    this.sleep = d.sleep ?? realSleep
  }

  /** The lease `key`'s work holds. */
  leaseOf(key: string): string {
    return `${this.prefix}:${key}`
  }

  /** Runs `work` once this process's earlier work on `key` has settled and `key`'s lease is taken. */
  run<T>(key: string, work: (lease: HeldLease) => Promise<T>): Promise<T> {
    return this.queue.run(key, async () => {
      const lease = await this.take(this.leaseOf(key))
      try {
        return await work(lease)
      } finally {
        // A lease not given back (the database unreachable) lapses by itself.
        await lease.release().catch(() => undefined)
      }
    })
  }

  private async take(name: string): Promise<HeldLease> {
    // Each run is its own owner, so a run's late release cannot free a later run's lease.
    const owner = newId(this.d.random, 'serial')
    const deadline = this.now() + (this.d.waitMs ?? SERIAL_WAIT_MS)
    let pause = FIRST_PAUSE_MS
    for (;;) {
      const held = await HeldLease.take(
        this.leases,
        this.d.clock,
        name,
        owner,
        this.d.leaseMs ?? SERIAL_LEASE_MS,
      )
      if (held) return held
      const left = deadline - this.now()
      if (left <= 0) throw this.d.busy()
      await this.sleep(Math.min(pause, left))
      pause = Math.min(pause * 2, MAX_PAUSE_MS)
    }
  }

  private now(): number {
    return this.d.clock.now().getTime()
  }
}
