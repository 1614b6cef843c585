import ipaddr from 'ipaddr.js'
import type { Clock } from '../clock/clock'
import { fail } from '../errors/errors'

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

interface Window {
  start: number
  count: number
}

// Bounds memory under a flood of distinct addresses; the oldest windows are dropped first.
const MAX_KEYS = 100_000

/**
 * In-process fixed-window counters keyed by limit and client (an IP, an address). One replica
 * holds its own counters; that suits a single-binary appliance and errs on the side of allowing.
 */
export class RateLimiter {
  private readonly windows = new Map<string, Window>()

  constructor(
    private readonly clock: Clock,
    /** When false every hit passes (ENGRAM_RATE_LIMITS=off). */
    readonly enabled: boolean,
  ) {}

  /** Counts a hit; over the limit it throws a 429 `rate_limited` with `Retry-After`. */
  hit(rule: RateLimitRule, key: string): void {
    if (!this.enabled) return
    const now = this.clock.now().getTime()
    const id = `${rule.name}\u0000${key}`
    let w = this.windows.get(id)
    if (!w || now - w.start >= rule.windowMs) {
      this.windows.delete(id)
      w = { start: now, count: 0 }
      this.windows.set(id, w)
      this.trim()
    }
    if (w.count >= rule.max) {
      const retryAfter = Math.max(1, Math.ceil((w.start + rule.windowMs - now) / 1000))
      throw fail(
        'rate_limited',
        undefined,
        { limit: rule.name, retry_after: retryAfter },
        {
          'retry-after': String(retryAfter),
        },
      )
    }
    w.count++
  }

  private trim(): void {
    if (this.windows.size <= MAX_KEYS) return
    // Map iteration follows insertion order and windows are re-inserted on renewal: oldest first.
    for (const id of this.windows.keys()) {
      this.windows.delete(id)
      if (this.windows.size <= MAX_KEYS * 0.9) break
    }
  }
}
