// The OpenID Connect relying party every way of signing in through a provider shares (Google
// sign-in, per-workspace single sign-on): discovery, the authorization request, the callback and a
// provider check. The protocol work, ID token checks included, is openid-client's; this file decides
// what is expected (issuer, audience, nonce, state, PKCE, the signing algorithm) and never hand-checks
// a token. The issuer is configuration, so the same code runs against Google and a local provider.
import * as oidc from 'openid-client'
import type { Clock } from '../clock/clock'
import type { Random } from '../crypto/random'
import { checkProvider, type ProviderCheck } from './oidc-check'
import { issuerAllowed } from './oidc-issuer'

export type { ProviderCheck } from './oidc-check'
export { issuerAllowed } from './oidc-issuer'

/** Who we are at a provider: its issuer and our client there. */
export interface OidcClientSettings {
  /** The issuer identifier (`https://accounts.google.com`); discovery is read from it. */
  issuer: string
  clientId: string
  clientSecret: string
  /** Allows an `http://` issuer that is not on a loopback address (an air-gapped lab). */
  allowHttpIssuer?: boolean
}

/** What the relying party is built from; `fetch` and the clock are injectable for tests. */
export interface OidcDeps {
  clock: Clock
  random: Random
  /** How requests to the provider are made (an egress-guarded fetch for customer issuers). */
  fetch?: typeof fetch
  /** How long a discovery document is reused, in ms (default one hour). */
  discoveryTtlMs?: number
}

/** The authorization request to send the browser to, and the values the callback must match. */
export interface AuthorizationRequest {
  url: URL
  state: string
  nonce: string
  codeVerifier: string
}

/** What the callback must match: the values bound to the browser when the flow began. */
export interface ExpectedCallback {
  state: string
  nonce: string
  codeVerifier: string
  /** The redirect URI the authorization request named (sent again to the token endpoint). */
  redirectUri: string
}

/** The claims of a verified ID token (userinfo fills in an address the token lacks). */
export interface VerifiedClaims {
  issuer: string
  subject: string
  email: string | null
  emailVerified: boolean
  name: string | null
}

/** Why a provider step failed; `detail` is for the log and never carries a secret. */
export type OidcFailure = 'insecure_issuer' | 'discovery' | 'provider_error' | 'invalid_response'

/** A provider step that failed: the issuer is refused, unreachable, or its answer did not check out. */
export class OidcError extends Error {
  override name = 'OidcError'
  constructor(
    readonly reason: OidcFailure,
    readonly detail: string,
  ) {
    super(detail)
  }
}

/**
 * The ID token algorithm to expect: one the provider lists in discovery, asymmetric (an HMAC
 * token would be keyed by the client secret) and never `none`; RS256 when listed (Google's).
 */
export function expectedAlgorithm(listed: readonly string[] | undefined): string | null {
  const usable = (listed ?? ['RS256']).filter((a) => a !== 'none' && !a.startsWith('HS'))
  return usable.includes('RS256') ? 'RS256' : (usable[0] ?? null)
}

interface Discovered {
  metadata: oidc.ServerMetadata
  at: number
  jwks?: oidc.ExportedJWKSCache
}

/** A relying party over openid-client; discovery is cached per (issuer, client) for a TTL. */
export class OidcRelyingParty {
  private readonly cache = new Map<string, Discovered>()
  private readonly ttl: number

  constructor(private readonly d: OidcDeps) {
    this.ttl = d.discoveryTtlMs ?? 3_600_000
  }

  /** The authorization request (code flow, PKCE S256, fresh state and nonce) for `redirectUri`. */
  async authorizationUrl(
    s: OidcClientSettings,
    redirectUri: string,
    extra: Record<string, string> = {},
  ): Promise<AuthorizationRequest> {
    const config = await this.configuration(s)
    const codeVerifier = this.randomValue()
    const state = this.randomValue()
    const nonce = this.randomValue()
    const url = oidc.buildAuthorizationUrl(config, {
      ...extra,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: 'openid email profile',
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    })
    return { url, state, nonce, codeVerifier }
  }

  /**
   * Finishes a callback: exchanges the code with the PKCE verifier and has openid-client check the
   * ID token (signature against the provider's keys, algorithm, issuer, audience, expiry, nonce)
   * and the state. `params` is the callback's query string.
   */
  async finish(
    s: OidcClientSettings,
    params: URLSearchParams,
    expected: ExpectedCallback,
  ): Promise<VerifiedClaims> {
    const config = await this.configuration(s)
    const current = new URL(expected.redirectUri)
    current.search = params.toString()
    try {
      const tokens = await oidc.authorizationCodeGrant(config, current, {
        pkceCodeVerifier: expected.codeVerifier,
        expectedState: expected.state,
        expectedNonce: expected.nonce,
        idTokenExpected: true,
      })
      const claims = tokens.claims()
      if (!claims) throw new OidcError('invalid_response', 'The provider returned no ID token.')
      let info: Record<string, unknown> = claims
      if (typeof claims.email !== 'string' && config.serverMetadata().userinfo_endpoint) {
        info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub)
      }
      return {
        issuer: claims.iss,
        subject: claims.sub,
        email: typeof info.email === 'string' ? info.email : null,
        // Some providers send the string "true"; anything else is not a verified address.
        emailVerified: info.email_verified === true || info.email_verified === 'true',
        name: typeof info.name === 'string' ? info.name : null,
      }
    } catch (e) {
      throw asOidcError(e)
    } finally {
      this.keepJwks(s, config)
    }
  }

  /** Checks discovery, the key set and the token endpoint (client credentials) of a provider. */
  async check(s: OidcClientSettings, redirectUri: string): Promise<ProviderCheck[]> {
    if (!issuerAllowed(s.issuer, s.allowHttpIssuer)) {
      return [{ name: 'discovery', ok: false, detail: insecureMessage(s.issuer) }]
    }
    return checkProvider(() => this.discover(s), redirectUri, this.fetcher())
  }

  /** Forgets cached discovery (an administrator changed the provider's settings). */
  forget(s: Pick<OidcClientSettings, 'issuer' | 'clientId'>): void {
    this.cache.delete(cacheKey(s))
  }

  /** A Configuration for this use, from cached discovery, with the injected clock and fetch. */
  private async configuration(s: OidcClientSettings): Promise<oidc.Configuration> {
    const now = this.d.clock.now().getTime()
    const key = cacheKey(s)
    let found = this.cache.get(key)
    if (!found || now - found.at >= this.ttl) {
      const config = await this.discover(s)
      found = { metadata: config.serverMetadata(), at: now }
      this.cache.set(key, found)
    }
    const alg = expectedAlgorithm(found.metadata.id_token_signing_alg_values_supported)
    if (!alg)
      throw new OidcError('discovery', 'The provider signs ID tokens with no algorithm this server accepts.')
    const config = new oidc.Configuration(found.metadata, s.clientId, {
      client_secret: s.clientSecret,
      id_token_signed_response_alg: alg,
      // openid-client reads Date.now(); the skew makes its "now" the injected clock's.
      [oidc.clockSkew]: Math.round((now - Date.now()) / 1000),
    })
    this.prepare(config, s)
    // By default a token endpoint's ID token is trusted for arriving over TLS; check its signature.
    oidc.enableNonRepudiationChecks(config)
    if (found.jwks) oidc.setJwksCache(config, found.jwks)
    return config
  }

  /** Fresh discovery from the issuer (openid-client checks the document names the same issuer). */
  private async discover(s: OidcClientSettings): Promise<oidc.Configuration> {
    if (!issuerAllowed(s.issuer, s.allowHttpIssuer))
      throw new OidcError('insecure_issuer', insecureMessage(s.issuer))
    const insecure = new URL(s.issuer).protocol === 'http:'
    try {
      return await oidc.discovery(new URL(s.issuer), s.clientId, s.clientSecret, undefined, {
        execute: insecure ? [oidc.allowInsecureRequests] : [],
        [oidc.customFetch]: this.fetcher(),
        timeout: 10,
      })
    } catch (e) {
      throw new OidcError('discovery', `Discovery at ${s.issuer} failed: ${describe(e)}`)
    }
  }

  private prepare(config: oidc.Configuration, s: OidcClientSettings): void {
    if (new URL(s.issuer).protocol === 'http:') oidc.allowInsecureRequests(config)
    const f = this.fetcher()
    if (f) config[oidc.customFetch] = f
    config.timeout = 10
  }

  private fetcher(): oidc.CustomFetch | undefined {
    const f = this.d.fetch
    return f ? (url, options) => f(url, options as RequestInit) : undefined
  }

  private keepJwks(s: OidcClientSettings, config: oidc.Configuration): void {
    const found = this.cache.get(cacheKey(s))
    const jwks = oidc.getJwksCache(config)
    if (found && jwks) found.jwks = jwks
  }

  /** 32 random bytes, base64url: a state, nonce or PKCE verifier (43 characters, as RFC 7636 asks). */
  private randomValue(): string {
    return Buffer.from(this.d.random.bytes(32)).toString('base64url')
  }
}

function cacheKey(s: Pick<OidcClientSettings, 'issuer' | 'clientId'>): string {
  return `${s.issuer}\n${s.clientId}`
}

function insecureMessage(issuer: string): string {
  return `The issuer ${issuer} is not https://; http:// is accepted only on a loopback address or when the operator allows it.`
}

/** A failure of openid-client as an OidcError: the provider refused, or its answer did not check out. */
function asOidcError(e: unknown): OidcError {
  if (e instanceof OidcError) return e
  if (e instanceof oidc.ResponseBodyError || e instanceof oidc.AuthorizationResponseError) {
    return new OidcError('provider_error', `The provider answered ${e.error}.`)
  }
  return new OidcError('invalid_response', describe(e))
}

/** An error's message and code, and its cause's, for the log (openid-client's messages name no secret). */
export function describe(e: unknown): string {
  if (!(e instanceof Error)) return String(e)
  const code = (e as { code?: unknown }).code
  const own = typeof code === 'string' ? `${e.message} (${code})` : e.message
  return e.cause instanceof Error ? `${own}: ${describe(e.cause)}` : own
}
