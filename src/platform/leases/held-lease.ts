import type { Clock } from '../clock/clock'
import type { NamedLeases } from './leases.repo'

/** A lease this process held was taken over (it lapsed first): the work it guarded must stop. */
export class LeaseLostError extends Error {
  constructor(readonly lease: string) {
    super(`Lost the lease ${lease}`)
    this.name = 'LeaseLostError'
  }
}

/**
 * A named lease taken by this process for a piece of work, renewed as the work goes on: `keep()`
 * between steps renews it once a third of it has passed, so a step may take up to two thirds of
 * the lease before another process can take it over.
 */
export class HeldLease {
  private renewedAt: number

  private constructor(
    private readonly leases: NamedLeases,
    private readonly clock: Clock,
    readonly name: string,
    readonly owner: string,
    private readonly ttlMs: number,
  ) {
    this.renewedAt = clock.now().getTime()
  }

  /** Takes `name` for `owner` (see `NamedLeases.take`); null when another process holds it. */
  static async take(
    leases: NamedLeases,
    clock: Clock,
    name: string,
    owner: string,
    ttlMs: number,
  ): Promise<HeldLease | null> {
    const held = new HeldLease(leases, clock, name, owner, ttlMs)
    return (await leases.take(name, owner, ttlMs)) ? held : null
  }

  /** Renews the lease if a third of it has passed; throws `LeaseLostError` when it is no longer ours. */
  async keep(): Promise<void> {
    const now = this.clock.now().getTime()
    if (now - this.renewedAt < this.ttlMs / 3) return
    if (!(await this.leases.renew(this.name, this.owner, this.ttlMs))) throw new LeaseLostError(this.name)
    this.renewedAt = now
  }

  /** Gives the lease up (a no-op when it was taken over). */
  release(): Promise<void> {
    return this.leases.release(this.name, this.owner)
  }
}
