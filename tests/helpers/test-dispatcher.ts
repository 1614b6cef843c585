import type { ManualClock } from '../../src/platform/clock/clock'
import { Dispatcher } from '../../src/platform/events/dispatcher'
import type { Outbox } from '../../src/platform/events/outbox'
import { memoryLogger } from '../../src/platform/log/log'

/** A dispatcher of `outbox` stepped by hand (`tick`, `drain`; never started), on a manual clock. */
export function testDispatcher(outbox: Outbox, clock: ManualClock, owner = 'proc_1_events'): Dispatcher {
  return new Dispatcher({ outbox, clock, log: memoryLogger(), owner, leaseMs: 60_000, pollMs: 1000 })
}
