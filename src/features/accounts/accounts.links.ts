// Emailed single-use links of the accounts feature (verification and password reset): issuing,
// mailing, handing over and spending them. Kept apart from the flows that send them so each file
// stays small.
import { baseUrl } from '../../platform/config/config.load'
import { newId } from '../../platform/crypto/random'
import { newLinkToken, secretHash } from '../../platform/crypto/token'
import { transaction } from '../../platform/db/transaction'
import {
  consumeEmailToken,
  type EmailTokenKind,
  insertEmailToken,
  lastSentAt,
  spendEmailTokens,
  type UserRow,
} from './accounts.repo'

import type { AccountsDeps, Caller, Link, LinkDelivery } from './accounts.types'

const HOUR = 3_600_000

/** Issues, mails, hands over and spends verification and reset links; secrets are stored only as SHA-256. */
export class AccountLinks {
  constructor(
    private readonly d: Pick<AccountsDeps, 'db' | 'clock' | 'random' | 'config' | 'mailer' | 'log'>,
  ) {}

  /**
   * Issues a fresh link of `kind` (older unused ones stop working) and mails it, unless one went to
   * this address within the cooldown. Returns the link when email is disabled (it belongs in the
   * response), else null. `wait: false` answers before the mail server does, so response time
   * does not tell whether an address has an account.
   */
  private async issue(user: UserRow, kind: EmailTokenKind, opts: { wait: boolean }): Promise<string | null> {
    const a = this.d.config.accounts
    const now = this.d.clock.now().getTime()
    const last = lastSentAt(this.d.db, user.id, kind)
    if (last !== null && now - last < a.resend_cooldown_seconds * 1000) return null
    const { token, hash } = newLinkToken(this.d.random)
    const ttl = kind === 'verify_email' ? a.verify_link_hours * HOUR : a.reset_link_minutes * 60_000
    transaction(this.d.db, () => {
      spendEmailTokens(this.d.db, user.id, kind, now)
      insertEmailToken(this.d.db, {
        id: newId(this.d.random, 'etk'),
        userId: user.id,
        kind,
        tokenHash: hash,
        // Expiry counts from the moment the link is sent.
        sentAt: now,
        expiresAt: now + ttl,
        usedAt: null,
      })
    })
    const base = baseUrl(this.d.config)
    const link =
      kind === 'verify_email'
        ? `${base}/console/verify-email?token=${token}`
        : `${base}/console/reset-password?token=${token}`
    if (!this.d.mailer.enabled) return link
    // The mailer logs and swallows delivery failures: the user can ask for another link.
    const sent = this.d.mailer.send({ to: user.email, ...this.message(user, kind, link) })
    if (opts.wait) await sent
    return null
  }

  /** Issues a link as `issue` does and hands it over as `deliver` does: the link for the response, or null. */
  async issueTo(
    user: UserRow,
    kind: EmailTokenKind,
    caller: Caller,
    opts: { wait: boolean },
  ): Promise<string | null> {
    return this.deliver(await this.issue(user, kind, opts), user, kind, caller)
  }

  /**
   * The answer to "send me a link" (resend verification, forgot password): always `sent`, so it
   * tells nobody whether an address has an account; a link is issued only when `user` is given
   * (the caller passes the account only when it may have one).
   */
  async answer(user: UserRow | undefined, kind: EmailTokenKind, caller: Caller): Promise<Link> {
    const out: Link = { status: 'sent', link_delivery: this.delivery(caller) }
    if (!user) return out
    const link = await this.issueTo(user, kind, caller, { wait: false })
    if (link && kind === 'verify_email') out.verify_link = link
    if (link && kind === 'reset_password') out.reset_link = link
    return out
  }

  /** Where a link for this caller goes while it is being issued (independent of the address). */
  delivery(caller: Caller): LinkDelivery {
    if (this.d.mailer.enabled) return 'email'
    return caller.loopback ? 'response' : 'server_log'
  }

  /** Spends a live link of `kind` once; returns its user id, or null when bad, spent or expired. */
  consume(token: string, kind: EmailTokenKind): string | null {
    return consumeEmailToken(this.d.db, secretHash(token), kind, this.d.clock.now().getTime())
  }

  /**
   * With email disabled, a verification or reset link is the key to an account, so it is answered
   * only to a caller on the server's own machine (the operator). Anyone else who asks gets
   * `sent`, and the link goes to the server log, where only the operator reads it: a stranger
   * who can reach the server can no longer take over an account by asking for its reset link.
   */
  private deliver(link: string | null, user: UserRow, kind: EmailTokenKind, caller: Caller): string | null {
    if (link === null) return null
    if (caller.loopback) return link
    this.d.log.warn('email is disabled: give this link to the account holder', {
      kind,
      email: user.email,
      link,
      request_id: caller.requestId,
    })
    return null
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
