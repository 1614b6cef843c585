import type { Config } from '../../platform/config/config.load'
import type { RateLimiter, RateLimitRule } from '../../platform/rate-limit/rate-limit'

const HOUR = 3_600_000

/** The per-IP rate limits of the accounts routes, from the `accounts` section of the config. */
export class AccountLimits {
  private readonly rules: Record<'register' | 'openSignup' | 'login', RateLimitRule>

  constructor(
    private readonly limiter: RateLimiter,
    a: Config['accounts'],
  ) {
    this.rules = {
      register: { name: 'register', max: a.register_per_ip_hour, windowMs: HOUR },
      openSignup: { name: 'open_signup', max: a.open_signup_per_ip_day, windowMs: 24 * HOUR },
      login: { name: 'login', max: a.login_per_ip_minute, windowMs: 60_000 },
    }
  }

  /** Counts a sign-up or an access request; over the hourly limit it throws `rate_limited`. */
  register(ip: string): void {
    this.limiter.hit(this.rules.register, ip)
  }

  /** Counts an open sign-up against the daily limit that comes on top of the hourly one. */
  openSignup(ip: string): void {
    this.limiter.hit(this.rules.openSignup, ip)
  }

  /**
   * Counts a sign-in, or anything else that could probe an address or a password (link resends,
   * password changes), against the per-minute limit they share.
   */
  login(ip: string): void {
    this.limiter.hit(this.rules.login, ip)
  }
}
