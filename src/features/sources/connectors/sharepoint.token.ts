// Application tokens for Microsoft Graph: the OAuth 2.0 client-credentials grant against the
// Microsoft identity platform's v2.0 token endpoint, `{login}/{tenant}/oauth2/v2.0/token`.
//
// This is the documented HTTP form of the grant rather than @azure/msal-node: msal refuses any
// authority that is not https (`authority_uri_insecure`), so it could never be pointed at a loopback
// stand-in without weakening TLS checks for the whole test process, and its discovery and network
// layers would be one more path for outbound requests to take around the guard. One form POST
// through `env.fetch` is all the grant needs.
import type { ConnectorEnv } from './connector'
import { SourceError } from './connector'
import { statusError, timeoutSignal, transportError } from './sharepoint.http'

const SERVICE = 'The Microsoft login service'

/** Errors the token endpoint answers for a tenant, client id or secret it does not accept. */
const CREDENTIAL_ERRORS = new Set([
  'invalid_client',
  'unauthorized_client',
  'invalid_request',
  'invalid_grant',
])

/** Renews a token this long before the endpoint says it expires, so a request never carries a dying one. */
const EARLY_RENEWAL_MS = 60_000

export interface ClientCredentialsInput {
  tenantId: string
  clientId: string
  clientSecret: string
}

/** Gets and caches an application token; one request at a time renews it. */
export class ClientCredentials {
  private token: { value: string; expiresAt: number } | null = null
  private pending: Promise<string> | null = null

  constructor(
    private readonly env: ConnectorEnv,
    private readonly input: ClientCredentialsInput,
  ) {}

  /** A token that has not expired by our clock; asks the endpoint when there is none. */
  async get(): Promise<string> {
    if (this.token && this.token.expiresAt > this.env.clock.now().getTime()) return this.token.value
    this.pending ??= this.request().finally(() => {
      this.pending = null
    })
    return this.pending
  }

  /** Forgets `stale` (Graph refused it), unless another request has already replaced it. */
  invalidate(stale: string): void {
    if (this.token?.value === stale) this.token = null
  }

  private async request(): Promise<string> {
    const login = this.env.config.microsoft_login_url.replace(/\/+$/, '')
    const url = `${login}/${encodeURIComponent(this.input.tenantId)}/oauth2/v2.0/token`
    // `.default` asks for every application permission the app was granted on this Graph host, so a
    // national cloud's Graph (graph.microsoft.us, ...) gets tokens for its own audience.
    const scope = `${new URL(this.env.config.graph_api_url).origin}/.default`
    const body = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: this.input.clientId,
      client_secret: this.input.clientSecret,
      scope,
    })
    let res: Response
    let answer: { access_token?: unknown; expires_in?: unknown; error?: unknown }
    try {
      res = await this.env.fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body,
        // The body holds the client secret: a token endpoint that redirects is not followed anywhere,
        // not even to its own origin (the guard refuses the redirect before sending anything on).
        redirect: 'error',
        signal: timeoutSignal(this.env),
      })
      answer = (await res.json().catch(() => ({}))) as typeof answer
    } catch (e) {
      throw transportError(e, SERVICE)
    }
    if (!res.ok) throw this.refusal(res, answer.error)
    if (typeof answer.access_token !== 'string' || !answer.access_token) {
      throw new SourceError('source_error', `${SERVICE} answered without a token.`)
    }
    const lifetimeMs = (typeof answer.expires_in === 'number' ? answer.expires_in : 3600) * 1000
    const renewAt = Math.max(lifetimeMs - EARLY_RENEWAL_MS, lifetimeMs / 2)
    this.token = { value: answer.access_token, expiresAt: this.env.clock.now().getTime() + renewAt }
    return answer.access_token
  }

  /** The endpoint names the OAuth error; only its code is kept (descriptions can echo the client id). */
  private refusal(res: Response, error: unknown): SourceError {
    if (res.status === 429 || res.status >= 500) return statusError(res, SERVICE, this.env)
    if (res.status === 400 || res.status === 401 || CREDENTIAL_ERRORS.has(String(error))) {
      return new SourceError(
        'bad_credentials',
        `${SERVICE} refused the tenant, client id or client secret${typeof error === 'string' ? ` (${error})` : ''}.`,
      )
    }
    return statusError(res, SERVICE, this.env)
  }
}
