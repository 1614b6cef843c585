import type { Config } from '../../platform/config/config.load'
import { clientKey, type RateLimiter, type RateLimitRule } from '../../platform/rate-limit/rate-limit'
import { normaliseEmail } from './accounts.schemas'

const HOUR = 3_600_000

type Rule = 'register' | 'openSignup' | 'login' | 'loginAccount' | 'linkAccount'

/**
 * The rate limits of the accounts routes, from the `accounts` section of the config: per client
 * address (as the trusted proxy reports it, see client-address.ts) and, for sign-in and links, per
 * account. Behind a proxy one address may be many people, so the per-address limit alone would
 * let one guesser lock everyone out; the per-account limit caps guessing at one account however
 * many addresses it comes from. The price (docs/accounts.md, "Rate limits"): whoever knows an
 * address can keep that account from signing in with its password for as long as they keep
 * sending wrong ones, and for at most a minute after they stop.
 */
export class AccountLimits {
  private readonly rules: Record<Rule, RateLimitRule>

  constructor(
    private readonly limiter: RateLimiter,
    a: Config['accounts'],
  ) {
    this.rules = {
      register: { name: 'register', max: a.register_per_ip_hour, windowMs: HOUR },
      openSignup: { name: 'open_signup', max: a.open_signup_per_ip_day, windowMs: 24 * HOUR },
      login: { name: 'login', max: a.login_per_ip_minute, windowMs: 60_000 },
      loginAccount: { name: 'login_account', max: a.login_per_account_minute, windowMs: 60_000 },
      // Separate from sign-in, so a stream of reset requests never blocks the owner's sign-in.
      linkAccount: { name: 'link_account', max: a.login_per_account_minute, windowMs: 60_000 },
    }
  }

  /** Counts a sign-up or an access request; over the hourly limit it throws `rate_limited`. */
  register(ip: string): Promise<void> {
    return this.limiter.hit(this.rules.register, clientKey(ip))
  }

  /** Counts an open sign-up against the daily limit that comes on top of the hourly one. */
  openSignup(ip: string): Promise<void> {
    return this.limiter.hit(this.rules.openSignup, clientKey(ip))
  }

  /**
   * Counts a password guess (a sign-in, a password change) against the client address's limit and
   * the account's. Every attempt counts, right or wrong, before the password is checked: counting
   * failures only would let a burst of parallel guesses all pass the check before any failed. The
   * account is the address as typed, normalised, known or not, so a 429 tells nothing about
   * whether it exists.
   */
  async login(ip: string, account: string): Promise<void> {
    await this.limiter.hit(this.rules.login, clientKey(ip))
    await this.limiter.hit(this.rules.loginAccount, normaliseEmail(account))
  }

  /** Counts a link request (resend verification, forgot password) per client address and per address asked for. */
  async link(ip: string, account: string): Promise<void> {
    await this.limiter.hit(this.rules.login, clientKey(ip))
    await this.limiter.hit(this.rules.linkAccount, normaliseEmail(account))
  }
}
