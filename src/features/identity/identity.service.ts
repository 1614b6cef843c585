// The identity feature's face: provider sign-in (Google) and linking a provider identity to an
// existing password account. The work is done by the parts beside it (identity.google.ts, the flow;
// identity.signin.ts, who an identity signs in as; identity.tickets.ts, link tickets).
import type { OidcFlowState } from '../../platform/auth/oidc-flow'
import { validationFailed } from '../../platform/errors/errors'
import type { Caller, UserRow } from '../accounts/accounts.service'
import { GoogleSignIn } from './identity.google'
import { IdentitySignIn, type Token } from './identity.signin'
import { type LinkTicket, LinkTickets } from './identity.tickets'
import type { IdentityDeps, Landing } from './identity.types'

export { GOOGLE_CALLBACK_PATH } from './identity.google'
export type { IdentityConfig, Landing, SsoEnforcement } from './identity.types'

/** Google sign-in and account linking (spec, Accounts and sign-in). */
export class IdentityService {
  private readonly google: GoogleSignIn
  private readonly signIn: IdentitySignIn

  constructor(
    private readonly d: IdentityDeps,
    flow: OidcFlowState,
  ) {
    this.signIn = new IdentitySignIn(d, new LinkTickets(d.secret, d.clock))
    this.google = new GoogleSignIn(d, flow, this.signIn)
  }

  /** Whether Google sign-in is configured (`google_enabled` in `/auth/config`). */
  googleEnabled(): boolean {
    return this.google.enabled()
  }

  /** `GET /auth/google/login`: where the browser goes, and the cookie binding the flow to it. */
  googleLogin(): Promise<Landing> {
    return this.google.login()
  }

  /** `GET /auth/google/callback`: the console with a session or link ticket, or the sign-in page with an error. */
  googleCallback(request: Request, params: URLSearchParams, caller: Caller): Promise<Landing> {
    return this.google.callback(request, params, caller)
  }

  /** The user a provider identity (issuer, subject) is linked to, or undefined: single sign-on asks before the address. */
  async linkedUser(
    issuer: string,
    subject: string,
  ): Promise<{ userId: string; workspaceId: string } | undefined> {
    const row = await this.d.repo.find(issuer, subject)
    return row ? { userId: row.userId, workspaceId: row.workspaceId } : undefined
  }

  /**
   * Links a provider identity to a user and audits it (single sign-on's first sign-in of a member):
   * refused (409 `identity_mismatch`) when the user has another identity at the issuer, nothing done
   * when it has this one. Call inside a unit.
   */
  linkIdentity(user: UserRow, identity: LinkTicket, caller: Caller): Promise<void> {
    return this.signIn.linkIdentity(user, identity, caller, 'refuse')
  }

  /** `POST /auth/link-info`: the address and provider a live ticket names. */
  linkInfo(ticket: string): { email: string; provider: string } {
    return this.signIn.linkInfo(ticket)
  }

  /** `POST /auth/link`: proves the account's password, links the identity, answers the session. */
  link(ticket: string, password: string | undefined, caller: Caller): Promise<Token> {
    if (password === undefined) {
      throw validationFailed([{ loc: ['body', 'password'], msg: 'Field required', type: 'missing' }])
    }
    return this.signIn.link(ticket, password, caller)
  }
}
