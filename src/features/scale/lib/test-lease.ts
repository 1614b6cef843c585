import type { Clock } from '../../../platform/clock/clock'
import { newId, type Random } from '../../../platform/crypto/random'
import type { Store } from '../../../platform/db/store'
import { HeldLease } from '../../../platform/leases/held-lease'
import { NamedLeases } from '../../../platform/leases/leases.repo'

/** The named lease a workspace's running scale test holds, for every process on the database. */
export function scaleTestLease(workspaceId: string): string {
  return `scale.test:${workspaceId}`
}

/**
 * One scale test per workspace across processes: a test holds its workspace's named lease from its
 * start to its end, renewed as its records come. The lease lasts as long as a test may run plus the
 * grace the in-process check gives, so a process that died mid-test blocks the workspace no longer
 * than its own slot would have.
 */
export class ScaleTestLeases {
  private readonly leases: NamedLeases

  constructor(
    store: Store,
    private readonly clock: Clock,
    private readonly random: Random,
  ) {
    this.leases = new NamedLeases(store, clock)
  }

  /** Takes the workspace's lease for `ttlMs`; null when another process's test holds it. */
  take(workspaceId: string, ttlMs: number): Promise<HeldLease | null> {
    // Each test is its own owner, so a test's late release cannot free a later test's lease.
    const owner = newId(this.random, 'scale')
    return HeldLease.take(this.leases, this.clock, scaleTestLease(workspaceId), owner, ttlMs)
  }
}
