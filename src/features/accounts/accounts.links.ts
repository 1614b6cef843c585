// Single-use links of the accounts feature (verification and password reset): issuing, handing
// over (mailed, logged for the operator or answered, as ENGRAM_EMAIL says) and spending them. Kept
// apart from the flows that send them so each file stays small.
import { baseUrl } from '../../platform/config/config.load'
import { newId } from '../../platform/crypto/random'
import { newLinkToken, secretHash } from '../../platform/crypto/token'
import { holdInUnit } from '../../platform/db/hold'
import type { EmailTokenKind, UserRow } from './accounts.repo'
import type { AccountsDeps, Caller, Link, LinkDelivery } from './accounts.types'

const HOUR = 3_600_000

/** Issues, hands over and spends verification and reset links; secrets are stored only as SHA-256. */
export class AccountLinks {
  constructor(
    private readonly d: Pick<AccountsDeps, 'store' | 'repo' | 'clock' | 'random' | 'config' | 'mailer'>,
  ) {}

  /**
   * Issues a fresh link of `kind` (older unused ones stop working) and hands it over as the email
   * mode says (mailed, logged for the operator, or answered), unless one went to this address
   * within the cooldown. Returns the link only when it belongs in the response (`disabled`).
   * `wait: false` answers before the mail server does, so response time does not tell whether an
   * address has an account.
   */
  async issue(
    user: UserRow,
    kind: EmailTokenKind,
    caller: Caller,
    opts: { wait: boolean },
  ): Promise<string | null> {
    const a = this.d.config.accounts
    const now = this.d.clock.now().getTime()
    const cooldown = a.resend_cooldown_seconds * 1000
    const { token, hash } = newLinkToken(this.d.random)
    const ttl = kind === 'verify_email' ? a.verify_link_hours * HOUR : a.reset_link_minutes * 60_000
    const issued = await this.d.store.unit(async () => {
      // Read in the unit that writes, with the user's links of this kind held (an advisory lock on
      // PostgreSQL, SQLite's one writer), so of two requests at once inside the cooldown one sends.
      await holdInUnit(this.d.store, `links:${kind}:${user.id}`)
      const last = await this.d.repo.lastSentAt(user.id, kind)
      if (last !== null && now - last < cooldown) return false
      await this.d.repo.spendEmailTokens(user.id, kind, now)
      await this.d.repo.insertEmailToken({
        id: newId(this.d.random, 'etk'),
        userId: user.id,
        kind,
        tokenHash: hash,
        // Expiry counts from the moment the link is sent.
        sentAt: now,
        expiresAt: now + ttl,
        usedAt: null,
      })
      return true
    })
    if (!issued) return null
    const base = baseUrl(this.d.config)
    const link =
      kind === 'verify_email'
        ? `${base}/console/verify-email?token=${token}`
        : `${base}/console/reset-password?token=${token}`
    // The mailer logs and swallows delivery failures: the user can ask for another link.
    const handed = await this.d.mailer.deliverLink(
      { to: user.email, kind, link, requestId: caller.requestId, ...this.message(user, kind, link) },
      opts,
    )
    return handed.link ?? null
  }

  /**
   * The answer to "send me a link" (resend verification, forgot password): always `sent`, so it
   * tells nobody whether an address has an account; a link is issued only when `user` is given
   * (the caller passes the account only when it may have one).
   */
  async answer(user: UserRow | undefined, kind: EmailTokenKind, caller: Caller): Promise<Link> {
    const out: Link = { status: 'sent', link_delivery: this.delivery() }
    if (!user) return out
    const link = await this.issue(user, kind, caller, { wait: false })
    if (link && kind === 'verify_email') out.verify_link = link
    if (link && kind === 'reset_password') out.reset_link = link
    return out
  }

  /**
   * Where links go (`link_delivery`): it depends on the configuration only, never on the caller or
   * on whether the address has an account. A caller's socket says nothing about who they are:
   * behind a reverse proxy on the same host every request arrives over loopback.
   */
  delivery(): LinkDelivery {
    return this.d.mailer.delivery
  }

  /**
   * Spends a live link of `kind` once (a conditional write: of two uses at once, one wins); returns
   * its user id, or null when bad, spent or expired. Call inside the unit that acts on it.
   */
  consume(token: string, kind: EmailTokenKind, now: number): Promise<string | null> {
    return this.d.repo.consumeEmailToken(secretHash(token), kind, now)
  }

  private message(user: UserRow, kind: EmailTokenKind, link: string): { subject: string; text: string } {
    const a = this.d.config.accounts
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
