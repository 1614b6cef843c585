import { Elysia } from 'elysia'
import { base62, type Random } from '../crypto/random'
import type { Logger } from '../log/log'
import { fail } from './errors'
import { errorResponse, styleOf } from './render'
import { requestState, startRequest } from './request-state'

/** A valid incoming request id is echoed; anything else is replaced (keeps logs injection-free). */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

export interface HttpShellOptions {
  random: Random
  log: Logger
  /** Removal date of the frozen routes, when one is scheduled. */
  frozenRemovalDate: string | null
}

/** The outer request handler: request id, deprecation headers, last-resort errors, one log line. */
export interface HttpShell {
  router: Elysia
  handle(request: Request): Promise<Response>
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

  const handle = async (request: Request): Promise<Response> => {
    const started = performance.now()
    const incoming = request.headers.get('x-request-id')
    const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : `req_${base62(opts.random, 20)}`
    const state = startRequest(request, requestId)
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
