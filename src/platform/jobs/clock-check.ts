// Leases compare times written by one replica's clock with another's: a replica whose clock is
// ahead takes others' leases for expired, one behind writes leases that lapse early. So a scheduler
// and a dispatcher on PostgreSQL compare their clock with the database's and claim nothing while the
// two differ by more than a tenth of the lease (docs/scale-out.md, "Jobs and the outbox dispatcher").
import type { Clock } from '../clock/clock'
import type { Logger } from '../log/log'

/** A difference below the tolerance but beyond this is logged as a warning (at each check, hourly). */
const WARN_BEYOND_MS = 1000

/** How often a clock found right is compared again. */
export const CLOCK_CHECK_EVERY_MS = 3_600_000

export interface ClockCheckOptions {
  /** The clock leases are written with (the scheduler's, the dispatcher's). */
  clock: Clock
  log: Logger
  /** The database's clock in ms (`databaseNow`); null when there is none to compare with (SQLite). */
  databaseNow: () => Promise<number | null>
  /** The lease the runners write: a tenth of it is the difference allowed. */
  leaseMs: number
}

/**
 * Whether this process's clock may be trusted with leases: compared with the database's at the first
 * `ok()` and then hourly; while it is off, at every call (each step of the runners), so they claim
 * again as soon as it is right. One check may serve a scheduler and a dispatcher.
 */
export class ClockCheck {
  private checkedAt = Number.NaN
  private off = false
  private pending: Promise<boolean> | null = null

  constructor(private readonly o: ClockCheckOptions) {}

  /** The difference allowed, in ms: a tenth of the lease. */
  get toleranceMs(): number {
    return this.o.leaseMs / 10
  }

  /** True when the clock is within a tenth of the lease of the database's (as last compared). */
  ok(): Promise<boolean> {
    const now = this.o.clock.now().getTime()
    // A clock moved back past the last check is compared again, as one an hour on.
    if (!this.off && Math.abs(now - this.checkedAt) < CLOCK_CHECK_EVERY_MS) return Promise.resolve(true)
    if (!this.pending) this.pending = this.compare().finally(() => (this.pending = null))
    return this.pending
  }

  private async compare(): Promise<boolean> {
    const before = this.o.clock.now().getTime()
    const theirs = await this.o.databaseNow()
    const after = this.o.clock.now().getTime()
    this.checkedAt = after
    // The database read its clock somewhere within the round trip: its middle, here.
    const skewMs = theirs === null ? 0 : Math.round(theirs - (before + after) / 2)
    const wasOff = this.off
    this.off = Math.abs(skewMs) > this.toleranceMs
    const fields = { skew_ms: skewMs, tolerance_ms: this.toleranceMs }
    if (this.off && !wasOff)
      this.o.log.error(
        "this process's clock differs from the database's by more than a tenth of the job lease: it claims no jobs or events until it is right",
        fields,
      )
    if (this.off) return false
    if (wasOff) this.o.log.info("this process's clock agrees with the database's again", fields)
    if (Math.abs(skewMs) > WARN_BEYOND_MS)
      this.o.log.warn("this process's clock differs from the database's by over a second", fields)
    return true
  }
}
