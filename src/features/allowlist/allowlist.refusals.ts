// How often a refused request is written to the audit log. Every refusal is answered 403, but only
// the first from an address in a minute becomes a row (carrying how many went unrecorded since the
// address's previous row), and a workspace gets at most PER_WORKSPACE rows a minute: a client
// retrying in a loop, or one holding a whole IPv6 block, cannot fill the log. Only a holder of a
// valid credential of the workspace reaches the check at all.
import type { Clock } from '../../platform/clock/clock'
import { clientKey } from '../../platform/rate-limit/rate-limit'

const WINDOW_MS = 60_000
/** Refusal rows one workspace may get in a minute, whatever the addresses. */
const PER_WORKSPACE = 60
/** Addresses remembered at most (the oldest are forgotten first); bounds memory under a flood. */
const MAX_KEYS = 20_000

interface Seen {
  at: number
  /** Refusals of the address not recorded since its last row. */
  repeats: number
}

/** Decides which refusals are recorded; in process, like the rate limits. */
export class RefusalLog {
  private readonly seen = new Map<string, Seen>()
  private readonly budgets = new Map<string, { start: number; count: number }>()

  constructor(private readonly clock: Clock) {}

  /**
   * Counts a refusal; answers the number of unrecorded refusals from the address before it when this
   * one is to be recorded, or null when it is not (same address within the minute, or the workspace
   * has had its rows for the minute). An IPv6 client counts by its /64, as the rate limits do.
   */
  take(workspaceId: string, address: string): number | null {
    const now = this.clock.now().getTime()
    const key = `${workspaceId}\u0000${clientKey(address)}`
    const last = this.seen.get(key)
    if (last && now - last.at < WINDOW_MS) {
      last.repeats++
      return null
    }
    if (!this.spend(workspaceId, now)) {
      if (last) last.repeats++
      else this.remember(key, { at: Number.NEGATIVE_INFINITY, repeats: 1 })
      return null
    }
    this.remember(key, { at: now, repeats: 0 })
    return last?.repeats ?? 0
  }

  private spend(workspaceId: string, now: number): boolean {
    let b = this.budgets.get(workspaceId)
    if (!b || now - b.start >= WINDOW_MS) {
      this.budgets.delete(workspaceId)
      b = { start: now, count: 0 }
      this.budgets.set(workspaceId, b)
      if (this.budgets.size > MAX_KEYS) this.budgets.delete(this.budgets.keys().next().value!)
    }
    if (b.count >= PER_WORKSPACE) return false
    b.count++
    return true
  }

  private remember(key: string, seen: Seen): void {
    // Re-inserted so that Map order is oldest first.
    this.seen.delete(key)
    this.seen.set(key, seen)
    if (this.seen.size > MAX_KEYS) this.seen.delete(this.seen.keys().next().value!)
  }
}
