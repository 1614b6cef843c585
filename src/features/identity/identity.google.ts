// "Sign in with Google": the redirect out (the flow's state, nonce and PKCE verifier sealed into a
// cookie bound to this browser) and the callback (the flow taken once, the code exchanged and the ID
// token checked by the shared relying party, then the person signed in, offered a link, or given a
// new workspace). Every outcome is a redirect to the console; every refusal is logged with its
// reason and never with a code, token, ticket or secret.
import { type OidcClientSettings, OidcError } from '../../platform/auth/oidc'
import { FlowRefused, type OidcFlowState } from '../../platform/auth/oidc-flow'
import { baseUrl } from '../../platform/config/config.load'
import { ApiError } from '../../platform/errors/errors'
import type { Caller } from '../accounts/accounts.service'
import type { IdentitySignIn, Outcome } from './identity.signin'
import type { IdentityDeps, Landing } from './identity.types'

/** The callback's path under the public URL: the redirect URI to register at Google. */
export const GOOGLE_CALLBACK_PATH = '/v1/auth/google/callback'

/** A provider's own OAuth error code (`access_denied`), passed on to the sign-in page only when it is one. */
const OAUTH_ERROR = /^[a-z_]{1,64}$/

/** The Google flow: `GET /auth/google/login` and `GET /auth/google/callback`. */
export class GoogleSignIn {
  constructor(
    private readonly d: IdentityDeps,
    private readonly flow: OidcFlowState,
    private readonly signIn: IdentitySignIn,
  ) {}

  /** Whether Google sign-in is configured (a client id and its secret). */
  enabled(): boolean {
    return !!(this.d.config.google.client_id && this.d.config.google.client_secret)
  }

  /** The redirect URI this server names to Google. */
  redirectUri(): string {
    return `${baseUrl(this.d.config)}${GOOGLE_CALLBACK_PATH}`
  }

  /** `GET /auth/google/login`: the browser goes to Google's consent screen with a fresh bound flow. */
  async login(): Promise<Landing> {
    if (!this.enabled()) return this.failed('google_not_configured', '')
    try {
      const req = await this.d.rp.authorizationUrl(this.settings(), this.redirectUri())
      const cookie = this.flow.issue({ state: req.state, nonce: req.nonce, codeVerifier: req.codeVerifier })
      return { location: req.url.href, cookie }
    } catch (e) {
      if (!(e instanceof OidcError)) throw e
      this.d.log.warn('google sign-in: provider unavailable', { reason: e.reason, detail: e.detail })
      return this.failed('provider_unavailable', '')
    }
  }

  /** `GET /auth/google/callback`: a session or a link ticket in the console's fragment, or the sign-in page with an error. */
  async callback(request: Request, params: URLSearchParams, caller: Caller): Promise<Landing> {
    const cookie = this.flow.clear()
    if (!this.enabled()) return this.failed('google_not_configured', cookie)
    try {
      const outcome = await this.finish(request, params, caller)
      const fragment = new URLSearchParams(
        outcome.kind === 'session'
          ? {
              access_token: outcome.token.access_token,
              token_type: outcome.token.token_type,
              expires_at: outcome.token.expires_at ?? '',
            }
          : { link_ticket: outcome.ticket },
      )
      return { location: `${baseUrl(this.d.config)}/console/auth/callback#${fragment}`, cookie }
    } catch (e) {
      return this.failed(this.codeOf(e, caller), cookie)
    }
  }

  private async finish(request: Request, params: URLSearchParams, caller: Caller): Promise<Outcome> {
    // The flow first: a callback this browser did not start is refused before anything else runs.
    const flow = await this.flow.take(request, params.get('state') ?? undefined)
    const providerError = params.get('error')
    if (providerError) {
      this.d.log.info('google sign-in: the provider refused', {
        request_id: caller.requestId,
        error: providerError,
      })
      throw new ProviderRefused(OAUTH_ERROR.test(providerError) ? providerError : 'provider_sign_in_failed')
    }
    const claims = await this.d.rp.finish(this.settings(), params, {
      ...flow,
      redirectUri: this.redirectUri(),
    })
    return this.signIn.resolve('google', claims, caller)
  }

  /** The sign-in page's `error` code for a failure, logged with its reason. */
  private codeOf(e: unknown, caller: Caller): string {
    const log = (reason: string, extra: Record<string, unknown> = {}) =>
      this.d.log.warn('google sign-in refused', { request_id: caller.requestId, reason, ...extra })
    if (e instanceof ProviderRefused) return e.code
    if (e instanceof FlowRefused) {
      log(`flow ${e.reason}`)
      return 'invalid_state'
    }
    if (e instanceof OidcError) {
      log(e.reason, { detail: e.detail })
      return e.reason === 'discovery' || e.reason === 'insecure_issuer'
        ? 'provider_unavailable'
        : 'provider_sign_in_failed'
    }
    if (e instanceof ApiError) {
      log(e.code)
      // Sign-up's refusal of a throwaway address is a 422 on a field; the sign-in page gets its name.
      return isDisposable(e) ? 'disposable_email' : e.code
    }
    throw e
  }

  private failed(code: string, cookie: string): Landing {
    const q = new URLSearchParams({ error: code })
    return { location: `${baseUrl(this.d.config)}/console/sign-in?${q}`, cookie }
  }

  private settings(): OidcClientSettings {
    const g = this.d.config.google
    return {
      issuer: g.issuer,
      clientId: g.client_id ?? '',
      clientSecret: g.client_secret ?? '',
      allowHttpIssuer: g.allow_http_issuer,
    }
  }
}

/** Whether an error is sign-up's 422 for a disposable address. */
function isDisposable(e: ApiError): boolean {
  return (
    e.code === 'validation_error' &&
    Array.isArray(e.details) &&
    e.details.some((i) => (i as { type?: unknown }).type === 'disposable_email')
  )
}

/** The provider answered the callback with an OAuth error (the person cancelled, or it refused). */
class ProviderRefused extends Error {
  constructor(readonly code: string) {
    super(code)
  }
}
