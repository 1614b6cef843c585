import { Elysia } from 'elysia'
import { base62, type Random } from '../crypto/random'
import { fail } from '../errors/errors'
import type { Logger } from '../log/log'
import { errorResponse, styleOf } from './render'
import { requestState, startRequest } from './request-state'
import { securityDefaults } from './security-headers'

/** Response headers a cross-origin caller may read, and request headers it may send. */
const EXPOSED_HEADERS =
  'x-request-id, x-total-count, x-next-cursor, retry-after, idempotent-replayed, deprecation, sunset, link'
const ALLOWED_HEADERS = 'authorization, content-type, idempotency-key, x-request-id'

/** A valid incoming request id is echoed; anything else is replaced (keeps logs injection-free). */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

export interface HttpShellOptions {
  random: Random
  log: Logger
  /** Removal date of the frozen routes, when one is scheduled. */
  frozenRemovalDate: string | null
  /** Browser origins allowed to call the API cross-origin; empty keeps CORS closed. */
  corsOrigins?: readonly string[]
}

/** What tells a request's socket peer: Bun's `Server` (the router is not listening itself). */
export interface PeerSource {
  requestIP(request: Request): { address: string } | null
}

/** The outer request handler: request id, deprecation headers, last-resort errors, one log line. */
export interface HttpShell {
  router: Elysia
  /** Handles one request; `server` is the Bun server it arrived on (absent in process). */
  handle(request: Request, server?: PeerSource): Promise<Response>
}

/** Builds the router and the wrapper around it that every request passes through. */
export function createHttpShell(opts: HttpShellOptions): HttpShell {
  const router: Elysia = new Elysia({ aot: true })
  router.onError(({ code, request, error }) => {
    const state = requestState(request).requestId
    if (code === 'NOT_FOUND') {
      return errorResponse(fail('not_found', 'Not Found'), styleOf(new URL(request.url).pathname), state)
    }
    return errorResponse(error, styleOf(new URL(request.url).pathname), state)
  })
  const removal = opts.frozenRemovalDate ? new Date(`${opts.frozenRemovalDate}T00:00:00Z`) : null
  const deprecationHeaders: Record<string, string> = removal
    ? {
        deprecation: `@${Math.floor(removal.getTime() / 1000)}`,
        sunset: removal.toUTCString(),
        link: '</v1>; rel="successor-version"',
      }
    : {}

  const handle = async (request: Request, server?: PeerSource): Promise<Response> => {
    const started = performance.now()
    const incoming = request.headers.get('x-request-id')
    const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : `req_${base62(opts.random, 20)}`
    const state = startRequest(request, requestId, server?.requestIP(request)?.address ?? null)
    const url = new URL(request.url)
    const style = styleOf(url.pathname)
    let response: Response
    try {
      response = await router.handle(request)
    } catch (e) {
      state.error = e
      response = errorResponse(e, style, requestId)
    }
    response = withHeaders(response, {
      ...securityDefaults(response.headers),
      ...corsHeaders(request, response),
      'x-request-id': requestId,
      ...(style === 'frozen' ? frozenHeaders(url) : {}),
    })
    const fields: Record<string, unknown> = {
      request_id: requestId,
      method: request.method,
      route: state.route,
      path: url.pathname,
      status: response.status,
      duration_ms: Math.round((performance.now() - started) * 100) / 100,
    }
    if (state.workspaceId) fields.workspace_id = state.workspaceId
    if (state.error) {
      fields.error =
        state.error instanceof Error ? (state.error.stack ?? state.error.message) : String(state.error)
      opts.log.error('request failed', fields)
    } else opts.log.info('request', fields)
    return response
  }

  // Closed unless the operator lists origins: a browser on another origin then gets no answer it
  // may read. Bearer tokens, not cookies, so credentials are never allowed cross-origin.
  const origins = new Set(opts.corsOrigins ?? [])
  const corsHeaders = (request: Request, response: Response): Record<string, string> => {
    const origin = request.headers.get('origin')
    if (!origin || !origins.has(origin)) return {}
    const headers: Record<string, string> = {
      'access-control-allow-origin': origin,
      vary: 'origin',
      'access-control-expose-headers': EXPOSED_HEADERS,
    }
    const allow = response.headers.get('allow')
    if (request.method === 'OPTIONS' && response.status === 204 && allow) {
      headers['access-control-allow-methods'] = allow
      headers['access-control-allow-headers'] = ALLOWED_HEADERS
      headers['access-control-max-age'] = '600'
    }
    return headers
  }

  // The root, docs and spec are not part of the frozen API surface.
  const frozenHeaders = (url: URL) =>
    url.pathname === '/' || url.pathname === '/openapi.json' || url.pathname === '/docs'
      ? {}
      : deprecationHeaders

  return { router, handle }
}

/** Sets headers on a response, copying it when its headers are immutable. */
function withHeaders(res: Response, headers: Record<string, string>): Response {
  try {
    for (const [k, v] of Object.entries(headers)) res.headers.set(k, v)
    return res
  } catch {
    const copy = new Response(res.body, res)
    for (const [k, v] of Object.entries(headers)) copy.headers.set(k, v)
    return copy
  }
}
