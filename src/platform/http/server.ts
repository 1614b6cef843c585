import { Elysia } from 'elysia'
import { base62, type Random } from '../crypto/random'
import { stackOf } from '../db/failures'
import { fail } from '../errors/errors'
import type { Logger } from '../log/log'
import { errorResponse, styleOf } from './render'
import { type PeerSource, pathOf, type RequestState, requestState, startRequest } from './request-state'
import { addSecurityDefaults } from './security-headers'

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

export type { PeerSource }

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
    const style = styleOf(pathOf(request.url))
    return errorResponse(code === 'NOT_FOUND' ? fail('not_found', 'Not Found') : error, style, state)
  })
  const decorate = responseHeaders(opts)

  // `router.fetch` is Elysia's handler without its async wrapper: a route that answers
  // synchronously (most reads) costs no promise hop between the router and this function.
  const handle = async (request: Request, server?: PeerSource): Promise<Response> => {
    const started = performance.now()
    const incoming = request.headers.get('x-request-id')
    const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : `req_${base62(opts.random, 20)}`
    const state = startRequest(request, requestId, server)
    const path = pathOf(request.url)
    let response: Response
    try {
      const routed = router.fetch(request) as Response | Promise<Response>
      response = routed instanceof Response ? routed : await routed
    } catch (e) {
      state.error = e
      response = errorResponse(e, styleOf(path), requestId)
    }
    response = decorate(request, response, requestId, path)
    logRequest(opts.log, request, state, response, path, started)
    return response
  }
  return { router, handle }
}

/**
 * What the shell adds to every response: the security headers it lacks, CORS for a listed origin,
 * the request id, and the deprecation headers on the frozen routes. Set in place, or on a copy
 * when the response's headers are immutable.
 */
function responseHeaders(opts: HttpShellOptions) {
  const removal = opts.frozenRemovalDate ? new Date(`${opts.frozenRemovalDate}T00:00:00Z`) : null
  const deprecation: [string, string][] = removal
    ? [
        ['deprecation', `@${Math.floor(removal.getTime() / 1000)}`],
        ['sunset', removal.toUTCString()],
        ['link', '</v1>; rel="successor-version"'],
      ]
    : []
  // Closed unless the operator lists origins: a browser on another origin then gets no answer it
  // may read. Bearer tokens, not cookies, so credentials are never allowed cross-origin.
  const origins = new Set(opts.corsOrigins ?? [])
  const set = (request: Request, response: Response, headers: Headers, requestId: string, path: string) => {
    addSecurityDefaults(headers)
    if (origins.size > 0) addCors(request, response, headers, origins)
    headers.set('x-request-id', requestId)
    // The root, docs and spec are not part of the frozen API surface.
    if (deprecation.length > 0 && styleOf(path) === 'frozen' && !UNFROZEN.has(path)) {
      for (const [k, v] of deprecation) headers.set(k, v)
    }
  }
  return (request: Request, response: Response, requestId: string, path: string): Response => {
    try {
      set(request, response, response.headers, requestId, path)
      return response
    } catch {
      const copy = new Response(response.body, response)
      set(request, response, copy.headers, requestId, path)
      return copy
    }
  }
}

const UNFROZEN = new Set(['/', '/openapi.json', '/docs'])

function addCors(request: Request, response: Response, headers: Headers, origins: Set<string>): void {
  const origin = request.headers.get('origin')
  if (!origin || !origins.has(origin)) return
  headers.set('access-control-allow-origin', origin)
  headers.set('vary', 'origin')
  headers.set('access-control-expose-headers', EXPOSED_HEADERS)
  const allow = response.headers.get('allow')
  if (request.method === 'OPTIONS' && response.status === 204 && allow) {
    headers.set('access-control-allow-methods', allow)
    headers.set('access-control-allow-headers', ALLOWED_HEADERS)
    headers.set('access-control-max-age', '600')
  }
}

/** The one log line of a request. */
function logRequest(
  log: Logger,
  request: Request,
  state: RequestState,
  response: Response,
  path: string,
  started: number,
): void {
  const fields: Record<string, unknown> = {
    request_id: state.requestId,
    method: request.method,
    route: state.route,
    path,
    status: response.status,
    duration_ms: Math.round((performance.now() - started) * 100) / 100,
  }
  if (state.workspaceId) fields.workspace_id = state.workspaceId
  if (state.error) {
    fields.error = stackOf(state.error)
    log.error('request failed', fields)
  } else log.info('request', fields)
}
