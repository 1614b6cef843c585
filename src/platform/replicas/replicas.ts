// A process's row in the replicas registry while it lives (replicas.repo.ts): written at start,
// stamped on a timer, deleted on a clean stop; each stamp also sweeps the rows nobody stamps any
// more. The runtime starts one for every process that runs jobs or serves, on either engine (on
// SQLite it is the one process's row). Other processes read it to tell an owner that speaks the
// owner-lock protocol (AdvisoryOwnerLocks), and the operator reads the fleet (`engram replicas`).
import type { Clock } from '../clock/clock'
import type { Logger } from '../log/log'
import type { ReplicaSelf, ReplicasRepo } from './replicas.repo'

/** How often a process stamps its row by default. */
export const STAMP_EVERY_MS = 10_000

/** A row not stamped for this many intervals is swept: its process is gone. */
export const SWEEP_AFTER_STAMPS = 5

export interface ReplicaRegistryOptions {
  repo: ReplicasRepo
  clock: Clock
  log: Pick<Logger, 'warn' | 'info'>
  /** This process; its start is the time `start` is called. */
  self: Omit<ReplicaSelf, 'startedAt'>
  /** How often the row is stamped (ms). */
  everyMs?: number
}

/** This process's row in the registry: `start` writes it and stamps it on a timer, `stop` deletes it. */
export class ReplicaRegistry {
  private timer: ReturnType<typeof setInterval> | null = null
  private ticking: Promise<void> | null = null
  private failing = false
  private row: ReplicaSelf | null = null

  constructor(private readonly o: ReplicaRegistryOptions) {}

  get everyMs(): number {
    return this.o.everyMs ?? STAMP_EVERY_MS
  }

  /**
   * Writes the row, then stamps it every `everyMs`. Resolves once the first stamp was tried: a
   * failure is logged and the timer tries again (the row is written by the first stamp that passes).
   */
  async start(): Promise<void> {
    if (this.timer) return
    this.row = { ...this.o.self, startedAt: this.o.clock.now().getTime() }
    this.timer = setInterval(() => void this.tick(), this.everyMs)
    await this.tick()
  }

  /**
   * One stamp of this process's row and a sweep of the rows last seen more than `SWEEP_AFTER_STAMPS`
   * intervals ago; never rejects (a failure is logged once, until a stamp passes again).
   */
  tick(): Promise<void> {
    this.ticking ??= this.stampAndSweep().finally(() => (this.ticking = null))
    return this.ticking
  }

  private async stampAndSweep(): Promise<void> {
    const { repo, clock, log } = this.o
    const self = this.row
    if (!self) return
    try {
      await repo.stamp(self)
      const swept = await repo.sweep(clock.now().getTime() - SWEEP_AFTER_STAMPS * this.everyMs)
      if (swept > 0) log.info('replicas no longer seen removed from the registry', { count: swept })
      if (this.failing) log.info("this process's replica row is stamped again", { owner: self.owner })
      this.failing = false
    } catch (e) {
      if (!this.failing)
        log.warn("this process's replica row could not be stamped", {
          owner: self.owner,
          error: (e as Error).message,
        })
      this.failing = true
    }
  }

  /** Stops stamping and deletes the row (a clean stop); a failure is logged, the row is swept later. */
  async stop(): Promise<void> {
    if (!this.timer) return
    clearInterval(this.timer)
    this.timer = null
    await this.ticking
    try {
      await this.o.repo.remove(this.o.self.owner)
    } catch (e) {
      this.o.log.warn("this process's replica row could not be deleted", { error: (e as Error).message })
    }
  }
}
