import type { Config } from '../../platform/config/config.load'
import { clientKey, type RateLimiter, type RateLimitRule } from '../../platform/rate-limit/rate-limit'

/**
 * The rate limit of `POST /auth/sso/start`, per client address (as the trusted proxy reports it, see
 * client-address.ts). Every start counts, a domain with single sign-on or not, before anything is
 * looked up: a start costs a discovery fetch at the workspace's provider, so an unlimited one would
 * let anyone make this server hammer a customer's identity provider, and counting only the found
 * ones would let a caller probe which domains use SSO without limit.
 */
export class SsoLimits {
  private readonly start: RateLimitRule

  constructor(
    private readonly limiter: RateLimiter,
    sso: Config['sso'],
  ) {
    this.start = { name: 'sso_start', max: sso.start_per_ip_minute, windowMs: 60_000 }
  }

  /** Counts a start; over the limit it throws 429 `rate_limited` with `Retry-After`. */
  started(ip: string): Promise<void> {
    return this.limiter.hit(this.start, clientKey(ip))
  }
}
