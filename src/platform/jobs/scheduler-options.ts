// What a scheduler is built with (scheduler.ts): its queue, slots, caps, lease and poll times.
import type { Clock } from '../clock/clock'
import type { Logger } from '../log/log'
import type { ClockCheck } from './clock-check'
import type { OwnerLiveness } from './owner-locks'
import type { JobQueue } from './queue'

export interface SchedulerOptions {
  queue: JobQueue
  clock: Clock
  log: Logger
  /** Worker slots: how many jobs run at once. */
  workers: number
  /** Most slots one workspace's jobs may hold at once (clamped to 1..workers); all by default. */
  workspaceSlots?: number
  /** Slots bulk jobs never take (at most workers - 1 are kept); none by default. */
  interactiveSlots?: number
  /** How long a claim lasts without a heartbeat. */
  leaseMs: number
  /** Poll interval of the production loop. */
  pollMs: number
  /** This process's lease owner name. */
  owner: string
  /** Delay before retry number `attempt` (1-based). */
  backoff?: (attempt: number) => number
  /** Tells owners whose process has ended, so their jobs resume without waiting for the lease. */
  owners?: OwnerLiveness
  /** Compares `clock` with the database's: while they differ, no job is claimed nor lease recovered. */
  clockCheck?: ClockCheck
}

/** Exponential backoff: 1 s, 2 s, 4 s, ... capped at 5 minutes. */
export const defaultBackoff = (attempt: number): number =>
  Math.min(300_000, 1000 * 2 ** Math.max(0, attempt - 1))
