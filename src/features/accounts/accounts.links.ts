// Emailed single-use links of the accounts feature (verification and password reset): issuing,
// mailing and spending them. Kept apart from accounts.service.ts so each file stays small.
import type { Clock } from '../../platform/clock/clock'
import { baseUrl, type Config } from '../../platform/config/config.load'
import { newId, type Random } from '../../platform/crypto/random'
import { newLinkToken, secretHash } from '../../platform/crypto/token'
import type { Db } from '../../platform/db/db'
import type { Mailer } from '../../platform/email/email'
import {
  consumeEmailToken,
  type EmailTokenKind,
  insertEmailToken,
  lastSentAt,
  spendEmailTokens,
  type UserRow,
} from './accounts.repo'

const HOUR = 3_600_000

/** Issues, mails and spends verification and reset links; secrets are stored only as SHA-256. */
export class AccountLinks {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly random: Random,
    private readonly config: Config,
    private readonly mailer: Mailer,
  ) {}

  /**
   * Issues a fresh link of `kind` (older unused ones stop working) and mails it, unless one went to
   * this address within the cooldown. Returns the link when email is disabled (it belongs in the
   * response), else null. `wait: false` answers before the mail server does, so response time
   * does not tell whether an address has an account.
   */
  async issue(user: UserRow, kind: EmailTokenKind, opts: { wait: boolean }): Promise<string | null> {
    const a = this.config.accounts
    const now = this.clock.now().getTime()
    const last = lastSentAt(this.db, user.id, kind)
    if (last !== null && now - last < a.resend_cooldown_seconds * 1000) return null
    const { token, hash } = newLinkToken(this.random)
    const ttl = kind === 'verify_email' ? a.verify_link_hours * HOUR : a.reset_link_minutes * 60_000
    this.db.$client.transaction(() => {
      spendEmailTokens(this.db, user.id, kind, now)
      insertEmailToken(this.db, {
        id: newId(this.random, 'etk'),
        userId: user.id,
        kind,
        tokenHash: hash,
        // Expiry counts from the moment the link is sent.
        sentAt: now,
        expiresAt: now + ttl,
        usedAt: null,
      })
    })()
    const base = baseUrl(this.config)
    const link =
      kind === 'verify_email'
        ? `${base}/console/verify-email?token=${token}`
        : `${base}/console/reset-password?token=${token}`
    if (!this.mailer.enabled) return link
    // The mailer logs and swallows delivery failures: the user can ask for another link.
    const sent = this.mailer.send({ to: user.email, ...this.message(user, kind, link) })
    if (opts.wait) await sent
    return null
  }

  /** Spends a live link of `kind` once; returns its user id, or null when bad, spent or expired. */
  consume(token: string, kind: EmailTokenKind): string | null {
    return consumeEmailToken(this.db, secretHash(token), kind, this.clock.now().getTime())
  }

  private message(user: UserRow, kind: EmailTokenKind, link: string): { subject: string; text: string } {
    const a = this.config.accounts
    if (kind === 'verify_email') {
      return {
        subject: 'Confirm your email address for Engram',
        text: `Hello ${user.name},\n\nConfirm your address to start using Engram:\n\n${link}\n\nThe link works once and expires in ${a.verify_link_hours} hours.\n`,
      }
    }
    return {
      subject: 'Reset your Engram password',
      text: `Hello ${user.name},\n\nSomeone asked to reset the password of your Engram account. To choose a new one, open:\n\n${link}\n\nThe link works once and expires in ${a.reset_link_minutes} minutes. If you did not ask for this, ignore this message.\n`,
    }
  }
}
