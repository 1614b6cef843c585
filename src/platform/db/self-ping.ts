import { createHash } from 'node:crypto'
import type { SQL } from 'bun'

/**
 * The channel a PostgreSQL process pings itself on, to know that its listening connection still
 * hears: one of its own (`engram_ping_` and its id's hex, within PostgreSQL's 63 bytes), so no
 * process hears another's pings.
 */
export function pingChannel(self: string): string {
  return `engram_ping_${createHash('sha256').update(self).digest('hex').slice(0, 32)}`
}

/**
 * How often a process pings itself, in ms. Commits another process makes while the listening
 * connection hears nothing are trusted past for `PING_MISSED` to `PING_MISSED` + 1 of these (the
 * window this leaves); the price is one small autocommit `NOTIFY` a second per process on the pool,
 * heard by that process alone (its own channel). A shorter interval narrows a window that only a hanging or reconnecting connection opens.
 */
export const PING_EVERY_MS = 1000

/**
 * Ticks a process's own ping may stay unanswered before its listening connection counts as lost:
 * two, not one, so that a ping has at least a whole interval to come back even when the event loop
 * was busy for longer than one (a late tick may run before the notification waiting behind it).
 */
export const PING_MISSED = 2

/** What the ping tells: the listening connection no longer hears (`lost`), and hears again (`found`). */
export interface PingWatch {
  readonly self: string
  lost(): void
  found(): void
}

/**
 * A process's ping to itself (docs/data-layer.md, "Memos and commits"). Each `tick` notifies
 * its own channel (pingChannel) with the process's id on the pool; the listening connection (the one that hears
 * commits) hears it back. When the pings of the last PING_MISSED ticks have not come back, or a ping
 * could not be sent (the database is down), the connection counts as lost: memos read every time.
 * The next ping that comes back, or the next `LISTEN` after a reconnect, trusts them again. Between a
 * drop and Bun's reconnect (seconds, with backoff), or forever on a connection that hangs without
 * closing, nothing else would tell.
 */
export class SelfPing {
  private unanswered = 0
  private missing = false
  private sending = false
  private sent = 0
  private heardCount = 0
  private waiters: { upTo: number; wake: () => void }[] = []

  /** `send` notifies pingChannel(watch.self) with `watch.self` on a connection that is not the listening one. */
  constructor(
    private readonly watch: PingWatch,
    private readonly send: (payload: string) => Promise<unknown>,
  ) {}

  /** Listens on `client`, the listening connection's client (its listens share one connection). */
  async listen(client: SQL): Promise<void> {
    await client.listen(
      pingChannel(this.watch.self),
      (from: string) => {
        if (from === this.watch.self) this.heard()
      },
      // A listen (the first, or after a reconnect) starts the count again: pings sent before went nowhere.
      () => {
        this.unanswered = 0
        this.heardCount = this.sent
        this.wake()
      },
    )
  }

  /** One interval: declares the connection lost if the last pings did not come back, then pings. */
  async tick(): Promise<void> {
    if (this.unanswered >= PING_MISSED) this.miss()
    this.unanswered++
    // A send still waiting (a pool that hangs) is not joined by another: the count goes on.
    if (this.sending) return
    this.sending = true
    try {
      await this.send(this.watch.self)
      this.sent++
    } catch {
      this.miss()
    } finally {
      this.sending = false
    }
  }

  /**
   * Resolves once every ping sent so far has come back (and with it every notification told before
   * it: they arrive in commit order); for tests, which must not sleep.
   */
  answered(): Promise<void> {
    const upTo = this.sent
    if (this.heardCount >= upTo) return Promise.resolve()
    return new Promise((wake) => this.waiters.push({ upTo, wake }))
  }

  private miss(): void {
    this.missing = true
    this.watch.lost()
  }

  private heard(): void {
    this.heardCount++
    this.unanswered = 0
    if (this.missing) {
      this.missing = false
      this.watch.found()
    }
    this.wake()
  }

  private wake(): void {
    const due = this.waiters.filter((w) => w.upTo <= this.heardCount)
    this.waiters = this.waiters.filter((w) => w.upTo > this.heardCount)
    for (const w of due) w.wake()
  }
}

/** Calls `ping.tick()` every `every` ms (none when 0); what stops it. The timer never holds the process. */
export function pingEvery(ping: SelfPing, every: number): () => void {
  if (every <= 0) return () => {}
  const timer = setInterval(() => void ping.tick(), every)
  timer.unref()
  return () => clearInterval(timer)
}
