// Microsoft Graph through @microsoft/microsoft-graph-client, with our own middleware chain instead of
// the default one: the default RetryHandler sleeps on 429 and 503 (a sync must hand the Retry-After
// to the queue instead), and the default AuthenticationHandler only signs https requests to Microsoft's
// hosts. Our one middleware sends the request through the guard's fetch, signs it, and follows the
// download redirect without the token.
import type { Client, Context, Middleware, ResponseType } from '@microsoft/microsoft-graph-client'
import { type ConnectorEnv, SourceError } from './connector'
import { statusError, timeoutSignal, transportError } from './sharepoint.http'
import type { ClientCredentials } from './sharepoint.token'

export const GRAPH = 'Microsoft Graph'

/**
 * Per-request state handed to the middleware through the client's middleware options: the token to
 * send, and the SourceError a failure became (the client rewraps thrown errors as GraphError, which
 * would lose the code).
 */
class RequestState {
  error: SourceError | null = null
  constructor(readonly token: string) {}
}

/** The last link of the chain: guard, sign, send, and follow a redirect to a download URL. */
class GuardedTransport implements Middleware {
  constructor(private readonly env: ConnectorEnv) {}

  async execute(context: Context): Promise<void> {
    const state = context.middlewareControl?.getMiddlewareOptions(RequestState) as RequestState | undefined
    const url = typeof context.request === 'string' ? context.request : context.request.url
    try {
      const headers = new Headers(context.options?.headers as HeadersInit | undefined)
      if (state) headers.set('authorization', `Bearer ${state.token}`)
      // Ends with the request timeout, or at once when the run stops (canceled, out of time).
      const timeout = timeoutSignal(this.env)
      const signal = this.env.signal ? AbortSignal.any([timeout, this.env.signal]) : timeout
      // Through the guard, which judges Graph's address and connects to the address it judged;
      // `manual`: a redirect comes back here, to be followed without the token.
      const res = await this.env.fetch(url, { ...context.options, headers, redirect: 'manual', signal })
      const location = res.headers.get('location')
      if (res.status >= 300 && res.status < 400 && location) {
        // `/content` answers with a pre-authenticated download URL on another host: the bearer token
        // stays with Graph, and the guard checks the new destination (and any further redirect).
        await res.body?.cancel()
        context.response = await this.env.fetch(new URL(location, url), { signal })
      } else {
        context.response = res
      }
    } catch (e) {
      const error = transportError(e, GRAPH)
      if (state) state.error = error
      throw error
    }
  }
}

/** GET requests to Graph with an application token, renewed once when Graph says it expired. */
export class GraphApi {
  private client: Promise<{ client: Client; raw: ResponseType }> | null = null
  private readonly base: string

  constructor(
    private readonly env: ConnectorEnv,
    private readonly tokens: ClientCredentials,
  ) {
    this.base = env.config.graph_api_url.replace(/\/+$/, '')
  }

  /**
   * The client, made by the first request: the library is loaded then, by the first SharePoint
   * source a server syncs, not by every server at start-up.
   */
  private graph(): Promise<{ client: Client; raw: ResponseType }> {
    this.client ??= import('@microsoft/microsoft-graph-client').then(({ Client, ResponseType }) => ({
      // `graph_api_url` carries the version (`.../v1.0`); the client joins baseUrl, defaultVersion
      // and the path, so the version is left empty here rather than doubled.
      client: Client.initWithMiddleware({
        baseUrl: this.base,
        defaultVersion: '',
        middleware: new GuardedTransport(this.env),
      }),
      raw: ResponseType.RAW,
    }))
    return this.client
  }

  /** The raw response to GET `path` (relative to the API base); a 401 renews the token and retries once. */
  async get(path: string): Promise<Response> {
    const { client, raw } = await this.graph()
    for (let attempt = 0; ; attempt++) {
      const token = await this.tokens.get()
      const state = new RequestState(token)
      let res: Response
      try {
        res = await client.api(path).middlewareOptions([state]).responseType(raw).get()
      } catch {
        throw state.error ?? new SourceError('source_error', `${GRAPH} could not be asked.`)
      }
      if (res.status !== 401 || attempt > 0) return res
      await res.body?.cancel()
      this.env.log.debug('sharepoint: Graph refused the token, renewing it once')
      this.tokens.invalidate(token)
    }
  }

  /** GET `path` as JSON; a status that is not a success throws, 404 as `notFound`. */
  async json<T>(path: string, notFound?: SourceError): Promise<T> {
    const res = await this.get(path)
    if (!res.ok) {
      await res.body?.cancel()
      throw statusError(res, GRAPH, this.env, notFound)
    }
    try {
      return (await res.json()) as T
    } catch (e) {
      throw e instanceof Error && e.name === 'TimeoutError'
        ? transportError(e, GRAPH)
        : new SourceError('source_error', `${GRAPH} answered with something that is not JSON.`)
    }
  }

  /**
   * The path of a link Graph returned (a nextLink or deltaLink) relative to the API base, or null for
   * a link elsewhere: the token is only ever sent to the configured Graph.
   */
  pathOf(link: string): string | null {
    return link.startsWith(`${this.base}/`) ? link.slice(this.base.length) : null
  }
}
