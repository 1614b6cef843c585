// Who a verified provider identity signs in as. A linked identity signs in its user (with the same
// refusals as a password: unverified, deactivated, suspended, and single sign-on enforced); an
// address that already has an account gets a link ticket, so the account's owner proves the
// password before the identity is linked; a new address gets a new workspace as sign-up would (the
// sign-up mode, registration switch and default plan obeyed), its address verified by the provider.
import type { Static } from '@sinclair/typebox'
import type { VerifiedClaims } from '../../platform/auth/oidc'
import { newId } from '../../platform/crypto/random'
import { isUniqueViolation } from '../../platform/db/failures'
import { holdInUnit } from '../../platform/db/hold'
import { fail } from '../../platform/errors/errors'
import { normaliseEmail, type TokenResp } from '../accounts/accounts.schemas'
import type { Caller, UserRow } from '../accounts/accounts.service'
import type { LinkTicket, LinkTickets } from './identity.tickets'
import type { IdentityDeps } from './identity.types'

/** A session (TokenResp). */
export type Token = Static<typeof TokenResp>

/** How a callback ends: a session, or a ticket to link the identity to an existing account. */
export type Outcome = { kind: 'session'; token: Token } | { kind: 'link'; ticket: string }

const NAME_MAX = 120

/** Signs in, links or creates the user of a provider identity. */
export class IdentitySignIn {
  constructor(
    private readonly d: IdentityDeps,
    private readonly tickets: LinkTickets,
  ) {}

  /** The outcome of a verified identity of `provider` (spec, `/auth/google/callback`). */
  async resolve(provider: string, claims: VerifiedClaims, caller: Caller): Promise<Outcome> {
    // Only an address the provider vouches for may find or make an account.
    if (!claims.email || !claims.emailVerified) throw fail('email_not_verified')
    const email = normaliseEmail(claims.email)
    const linked = await this.d.repo.find(claims.issuer, claims.subject)
    if (linked) {
      const user = await this.d.accounts.workspaceUser(linked.workspaceId, linked.userId)
      return { kind: 'session', token: await this.signInAs(user, provider, caller) }
    }
    const existing = await this.d.accounts.userByEmail(email)
    if (existing) {
      // Said now rather than after the password: the link would be refused for the same reasons.
      if (existing.status !== 'active') throw fail('account_disabled')
      if (await this.d.sso.enforces(existing.workspaceId)) throw fail('sso_required')
      const ticket = { provider, issuer: claims.issuer, subject: claims.subject, email, name: claims.name }
      return { kind: 'link', ticket: this.tickets.issue(ticket) }
    }
    return { kind: 'session', token: await this.create(provider, claims, email, caller) }
  }

  /** `POST /auth/link-info`: the address and provider a live ticket names. */
  linkInfo(ticket: string): { email: string; provider: string } {
    const t = this.tickets.read(ticket)
    return { email: t.email, provider: t.provider }
  }

  /**
   * `POST /auth/link`: the account's password proves the person owns it (through password sign-in,
   * so its rate limits and refusals apply, single sign-on enforcement included); the identity is then
   * linked and the answer is the session, recorded as made by the provider (`via: google`): the
   * person signs in with it from now on. An account links one identity per issuer: one the account
   * had at this issuer (the address was given to a new provider account) is replaced, since the
   * password holder, not the address, decided.
   */
  async link(ticket: string, password: string, caller: Caller): Promise<Token> {
    const t = this.tickets.read(ticket)
    const user = await this.d.accounts.userByEmail(t.email)
    if (!user) throw fail('link_ticket_invalid')
    const linked = await this.d.repo.find(t.issuer, t.subject)
    if (linked && linked.userId !== user.id) throw fail('identity_linked_elsewhere')
    if (user.status !== 'active') throw fail('account_disabled')
    if (await this.d.sso.enforces(user.workspaceId)) throw fail('sso_required')
    const token = await this.d.accounts.login(t.email, password, false, caller, undefined, t.provider)
    if (!linked) await this.d.store.unit(() => this.linkIdentity(user, t, caller, 'replace'))
    return token
  }

  /** Signs in the user of a linked identity, refused as password sign-in would be. */
  private async signInAs(user: UserRow, provider: string, caller: Caller): Promise<Token> {
    if (user.emailVerifiedAt === null) throw fail('email_not_verified')
    if (user.status !== 'active') throw fail('account_disabled')
    if ((await this.d.workspaces.get(user.workspaceId))?.status !== 'active')
      throw fail('workspace_suspended')
    if (await this.d.sso.enforces(user.workspaceId)) throw fail('sso_required')
    return await this.d.accounts.signIn(user, 'normal', provider, caller)
  }

  /**
   * A new workspace and its first admin for a new address, through accounts' own sign-up: the same
   * refusals and per-address limits as `/auth/register` (registration switch, hourly and open-mode
   * daily limits, disposable addresses), the same plan.
   */
  private async create(
    provider: string,
    claims: VerifiedClaims,
    email: string,
    caller: Caller,
  ): Promise<Token> {
    await this.d.accounts.admitSignUp(email, caller)
    const name = (claims.name?.trim() || email.split('@')[0] || email).slice(0, NAME_MAX)
    const user = await this.d.store.unit(async () => {
      // The provider verified the address, so no verification link is needed.
      const row = await this.d.accounts.createWorkspace({
        workspaceName: `${name}'s workspace`.slice(0, NAME_MAX),
        email,
        name,
        passwordHash: null,
        verified: true,
      })
      await this.linkIdentity(
        row,
        { provider, issuer: claims.issuer, subject: claims.subject, email, name },
        caller,
        'refuse',
      )
      return row
    })
    return await this.d.accounts.signIn(user, 'normal', provider, caller)
  }

  /**
   * Links an identity to a user and records it (single sign-on links its members too). The user's
   * identity at the same issuer, if another, is replaced (`replace`: the password holder decided,
   * the audit row names the `replaced_subject`) or refuses the link (`refuse`: 409
   * `identity_mismatch`); the same identity linked already (two first sign-ins at once) is left as
   * it is. Call inside a unit.
   */
  async linkIdentity(
    user: UserRow,
    t: LinkTicket,
    caller: Caller,
    other: 'replace' | 'refuse',
  ): Promise<void> {
    // The user's links take turns (an advisory lock on PostgreSQL, SQLite's one writer), so two at
    // once cannot both read "none at this issuer"; the unique (user_id, issuer) index backs it.
    await holdInUnit(this.d.store, `identities:${user.id}`)
    const earlier = await this.d.repo.ofUserAt(user.id, t.issuer)
    if (earlier?.subject === t.subject) return
    if (earlier && other === 'refuse') throw fail('identity_mismatch')
    if (earlier) await this.d.repo.delete(earlier.id)
    try {
      await this.d.repo.insert({
        id: newId(this.d.random, 'idn'),
        provider: t.provider,
        issuer: t.issuer,
        subject: t.subject,
        userId: user.id,
        workspaceId: user.workspaceId,
        email: t.email,
        createdAt: this.d.clock.now().getTime(),
      })
    } catch (e) {
      // With the user held, only (issuer, subject) can refuse it: another user linked it meanwhile.
      if (isUniqueViolation(e)) throw fail('identity_linked_elsewhere')
      throw e
    }
    await this.d.events.publish({
      type: 'identity.linked',
      workspaceId: user.workspaceId,
      payload: {
        actor: { type: 'user', id: user.id, ip: caller.ip, requestId: caller.requestId },
        target: { type: 'user', id: user.id },
        details: {
          provider: t.provider,
          issuer: t.issuer,
          ...(earlier === undefined ? {} : { replaced_subject: earlier.subject }),
        },
      },
    })
  }
}
