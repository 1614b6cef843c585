import ipaddr from 'ipaddr.js'
import type { Clock } from '../clock/clock'
import { sha256Hex } from '../crypto/hash'
import type { Store } from '../db/store'
import { fail } from '../errors/errors'
import { RateLimitRepo } from './rate-limit.repo'

/**
 * The key a client address is counted under. An IPv6 client usually holds a whole /64 (one
 * customer's network), and could otherwise take a fresh address for every request; so IPv6 counts
 * by its /64, IPv4 (and anything that does not parse) by the address itself.
 */
export function clientKey(ip: string): string {
  if (!ipaddr.IPv6.isValid(ip) || ipaddr.IPv4.isValidFourPartDecimal(ip)) return ip
  const v6 = ipaddr.process(ip)
  if (v6.kind() === 'ipv4') return v6.toString()
  const parts = (v6 as ipaddr.IPv6).parts.slice(0, 4)
  return `${parts.map((p) => p.toString(16)).join(':')}::/64`
}

/** One limit: at most `max` hits per `windowMs` for each key. */
export interface RateLimitRule {
  /** Name of the limit; keys of different limits never share a counter. */
  name: string
  max: number
  windowMs: number
}

// Ended windows are swept at most this often by each process (a hit of their key renews them anyway).
const SWEEP_EVERY_MS = 60_000

/**
 * Fixed-window counters keyed by limit and client (an IP, an account), kept in the store, so every
 * process on one database (replicas on PostgreSQL) counts against the same limit. Keys are kept
 * hashed; ended windows are swept, so the table holds only the windows still running.
 */
export class RateLimiter {
  private readonly repo: RateLimitRepo
  private nextSweep = 0

  constructor(
    store: Store,
    private readonly clock: Clock,
    /** When false every hit passes (ENGRAM_RATE_LIMITS=off). */
    readonly enabled: boolean,
  ) {
    this.repo = new RateLimitRepo(store)
  }

  /** Counts a hit; over the limit it throws a 429 `rate_limited` with `Retry-After`. */
  async hit(rule: RateLimitRule, key: string): Promise<void> {
    if (!this.enabled) return
    const now = this.clock.now().getTime()
    if (now >= this.nextSweep) {
      this.nextSweep = now + SWEEP_EVERY_MS
      await this.repo.removeEnded(now)
    }
    const w = await this.repo.hit(rule.name, sha256Hex(key), now, rule.windowMs, rule.max)
    if (w.count <= rule.max) return
    const retryAfter = Math.max(1, Math.ceil((w.windowEnd - now) / 1000))
    throw fail(
      'rate_limited',
      undefined,
      { limit: rule.name, retry_after: retryAfter },
      {
        'retry-after': String(retryAfter),
      },
    )
  }
}
