import type { AuthorizationRequest, OidcClientSettings, VerifiedClaims } from '../../platform/auth/oidc'
import { OidcError } from '../../platform/auth/oidc'
import { FlowRefused, type OidcFlowState } from '../../platform/auth/oidc-flow'
import { baseUrl } from '../../platform/config/config.load'
import { SealBroken } from '../../platform/crypto/sealed'
import { ApiError, type ErrorCode, fail } from '../../platform/errors/errors'
import { normaliseEmail } from '../accounts/accounts.schemas'
import type { Caller, UserRow } from '../accounts/accounts.service'
import { domainOf } from './sso.domains'
import type { SsoConfigRow } from './sso.repo'
import type { SsoSettings } from './sso.settings'
import type { SsoDeps } from './sso.types'

/** Where `POST /auth/sso/start` sends the browser, and the cookie that binds the flow to it. */
export interface SsoStart {
  authorizationUrl: string
  cookie: string
}

/** Where the callback sends the browser, and the cookie it clears. */
export interface SsoLanding {
  location: string
  cookie: string
}

/** A provider's own OAuth error code, passed on to the sign-in page only when it is one. */
const OAUTH_ERROR = /^[a-z_]{1,64}$/

/**
 * Sign-in through a workspace's identity provider: the start (address → domain → workspace →
 * the provider's page, the flow sealed into a cookie), and the callback (the flow taken once, the
 * code exchanged and the ID token checked by the shared relying party, then the member found or
 * created under the seat cap). SSO never creates a workspace: the flow names the workspace of the
 * domain, and nothing else can.
 */
export class SsoSignIn {
  constructor(
    private readonly d: SsoDeps,
    private readonly settings: SsoSettings,
    private readonly flow: OidcFlowState,
  ) {}

  /** `POST /auth/sso/start`: the provider's sign-in page for the workspace that claimed the address's domain. */
  async start(rawEmail: string, caller: Caller): Promise<SsoStart> {
    await this.d.limits.started(caller.ip)
    const email = normaliseEmail(rawEmail)
    const workspaceId = await this.d.repo.workspaceOfDomain(domainOf(email))
    const row = workspaceId ? await this.d.repo.config(workspaceId) : undefined
    if (!row) throw fail('sso_not_configured')
    let req: AuthorizationRequest
    try {
      req = await this.d.rp.authorizationUrl(this.client(row), this.settings.redirectUri(), {
        login_hint: email,
      })
    } catch (e) {
      if (!(e instanceof OidcError)) throw e
      this.d.log.warn('sso provider unavailable', {
        workspace_id: row.workspaceId,
        reason: e.reason,
        detail: e.detail,
      })
      throw fail('sso_provider_error')
    }
    const cookie = this.flow.issue({
      state: req.state,
      nonce: req.nonce,
      codeVerifier: req.codeVerifier,
      payload: { workspace_id: row.workspaceId },
    })
    return { authorizationUrl: req.url.href, cookie }
  }

  /**
   * `GET /auth/sso/callback`: a session in the console's URL fragment, or the sign-in page with
   * the error's code. Every refusal is logged with its reason (never a token or a secret).
   */
  async callback(request: Request, params: URLSearchParams, caller: Caller): Promise<SsoLanding> {
    const cookie = this.flow.clear()
    const base = baseUrl(this.d.config)
    try {
      const t = await this.finish(request, params, caller)
      const fragment = new URLSearchParams({
        access_token: t.access_token,
        token_type: t.token_type,
        expires_at: t.expires_at ?? '',
      })
      return { location: `${base}/console/auth/callback#${fragment}`, cookie }
    } catch (e) {
      const code = landingCode(e)
      if (code === 'internal_error') {
        this.d.log.error('sso callback failed', { error: String(e), request_id: caller.requestId })
      } else {
        this.d.log.info('sso sign-in refused', {
          code,
          reason: (e as Error).message,
          request_id: caller.requestId,
        })
      }
      return { location: `${base}/console/sign-in?error=${encodeURIComponent(code)}`, cookie }
    }
  }

  private async finish(request: Request, params: URLSearchParams, caller: Caller) {
    const flow = await this.flow.take(request, params.get('state') ?? undefined)
    const providerError = params.get('error')
    if (providerError !== null) {
      throw new ProviderSaid(OAUTH_ERROR.test(providerError) ? providerError : 'sso_provider_error')
    }
    const row = await this.d.repo.config(flow.payload?.workspace_id ?? '')
    if (!row) throw fail('sso_not_configured')
    let claims: VerifiedClaims
    try {
      claims = await this.d.rp.finish(this.client(row), params, {
        state: flow.state,
        nonce: flow.nonce,
        codeVerifier: flow.codeVerifier,
        redirectUri: this.settings.redirectUri(),
      })
    } catch (e) {
      if (!(e instanceof OidcError)) throw e
      const code = e.reason === 'invalid_response' ? 'sso_token_invalid' : 'sso_provider_error'
      throw fail(code, `${e.reason}: ${e.detail}`)
    }
    if (!claims.email || !claims.emailVerified) {
      throw fail(
        'email_not_verified',
        'The provider did not vouch for the address (email_verified is not true).',
      )
    }
    if ((await this.d.workspaces.get(row.workspaceId))?.status !== 'active') throw fail('workspace_suspended')
    // The provider has answered: what follows awaits only the database.
    const user = await this.member(row, normaliseEmail(claims.email), claims, caller)
    return await this.d.accounts.signIn(user, 'normal', 'sso', caller)
  }

  /**
   * The member the provider vouched for: the user its identity (issuer, subject) was linked to, else
   * the workspace's user of that address (linked now), else a new member created just in time with
   * the default role, when the address is at one of the workspace's domains and a seat is free. An
   * address or identity of another workspace is refused: SSO moves no one between workspaces. So is
   * an address whose member is linked to another subject at this issuer (`identity_mismatch`): the
   * company gave the address to another person, who must not sign in as the old member.
   */
  private async member(
    row: SsoConfigRow,
    email: string,
    claims: VerifiedClaims,
    caller: Caller,
  ): Promise<UserRow> {
    const linked = await this.d.identity.linkedUser(claims.issuer, claims.subject)
    if (linked) {
      if (linked.workspaceId !== row.workspaceId)
        throw fail('email_taken', 'The identity belongs to another workspace.')
      const user = await this.d.accounts.workspaceUser(row.workspaceId, linked.userId)
      usable(user)
      return user
    }
    const identity = {
      provider: 'sso',
      issuer: claims.issuer,
      subject: claims.subject,
      email,
      name: claims.name,
    }
    const existing = await this.d.accounts.userByEmail(email)
    if (existing) {
      if (existing.workspaceId !== row.workspaceId) {
        throw fail('email_taken', 'The address belongs to another workspace.')
      }
      usable(existing)
      // Refused (identity_mismatch) if the member is linked to another subject at this issuer; two
      // first sign-ins at once take turns on the member (identity holds it), on either engine.
      await this.d.store.unit(() => this.d.identity.linkIdentity(existing, identity, caller))
      return existing
    }
    if ((await this.d.repo.workspaceOfDomain(domainOf(email))) !== row.workspaceId)
      throw fail('sso_domain_not_claimed')
    return this.d.store.unit(async () => {
      // Counted and created in one unit with the seats held (holdCap), so two first sign-ins (or a
      // sign-in and an invitation) cannot both take the last seat, on either engine.
      await this.d.plans.holdCap(row.workspaceId, 'seats')
      const active = (await this.d.accounts.workspaceUsers(row.workspaceId)).filter(
        (u) => u.status === 'active',
      ).length
      if (row.seatCap !== null && active >= row.seatCap) throw fail('seat_cap_reached')
      // The plan's seats count every member (as /admin/billing does).
      const members = (await this.d.accounts.workspaceUsers(row.workspaceId)).length
      await this.d.plans.ensureRoom(row.workspaceId, 'seats', members)
      const user = await this.d.accounts.createUser({
        workspaceId: row.workspaceId,
        email,
        name: (claims.name ?? '').trim().slice(0, 120) || email.slice(0, email.indexOf('@')),
        passwordHash: null,
        role: row.defaultRole,
        verified: true,
      })
      await this.d.events.publish({
        type: 'sso.member_joined',
        workspaceId: row.workspaceId,
        payload: {
          actor: { type: 'user', id: user.id, ip: caller.ip, requestId: caller.requestId },
          target: { type: 'user', id: user.id },
          details: { email, role: user.role, issuer: claims.issuer },
        },
      })
      await this.d.identity.linkIdentity(user, identity, caller)
      return user
    })
  }

  private client(row: SsoConfigRow): OidcClientSettings {
    try {
      return this.settings.client(row)
    } catch (e) {
      if (!(e instanceof SealBroken)) throw e
      throw fail(
        'sso_provider_error',
        'The stored client secret cannot be read (the instance secret changed?).',
      )
    }
  }
}

/**
 * Refuses a member who could not use a session: deactivated, or an open sign-up never confirmed
 * (its session would be refused on the first request). Checked before anything is linked.
 */
function usable(user: UserRow): void {
  if (user.status !== 'active') throw fail('account_disabled')
  if (user.emailVerifiedAt === null) throw fail('email_not_verified')
}

/** The provider's own refusal (`error=access_denied` on the callback), passed on as it said it. */
class ProviderSaid extends Error {
  constructor(readonly code: string) {
    super(`The provider answered ${code}.`)
  }
}

/** The `error` code a refusal lands on the sign-in page with (`internal_error` for a fault). */
function landingCode(e: unknown): string {
  if (e instanceof FlowRefused) return 'invalid_state' satisfies ErrorCode
  if (e instanceof ProviderSaid) return e.code
  if (e instanceof ApiError) return e.code
  return 'internal_error' satisfies ErrorCode
}
