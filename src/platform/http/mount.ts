import { type TObject, type TSchema, Type } from '@sinclair/typebox'
import type { Elysia } from 'elysia'
import { type AccessCheck, type Authenticator, type Principal, reachesBase } from '../auth/principal'
import { ApiError, fail, notFound } from '../errors/errors'
import { decodeCursor, type ListResult } from '../paging/paging'
import { authorize } from './authorize'
import { decodeBody, readBody } from './body'
import type { ClientAddresses } from './client-address'
import { HandlerContext } from './context'
import type { IdempotencyStore } from './idempotency'
import { refuseBodyNul, refusePathNul } from './nul'
import { pageQueryProperties } from './pagination'
import { errorResponse, jsonResponse } from './render'
import { type RequestState, requestState } from './request-state'
import { type ApiStyle, idempotencyOf, Reply, type RouteDef } from './route'
import { compileValidator, type Validator } from './validation'

/** What the mount needs from the outside world. */
export interface MountDeps {
  maxBodyBytes: number
  /** Works out the client address (the socket peer, or what a trusted proxy reports). */
  clients: ClientAddresses
  idempotency: IdempotencyStore
  authenticate: Authenticator
  /** Refuses a principal's request by where it comes from (the workspace's IP allowlist). */
  admit?: AccessCheck
}

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/

/** The path a route answers on for a style: `/v1<path>` or `<path>`. */
export function mountedPath(route: RouteDef, style: ApiStyle): string {
  if (style === 'frozen') return route.path
  return route.path === '/' || route.path === '' ? '/v1' : `/v1${route.path}`
}

/** The styles a route is mounted under. */
export function stylesOf(route: RouteDef): ApiStyle[] {
  if (route.mount === 'v1') return ['v1']
  if (route.mount === 'unversioned') return ['frozen']
  return ['v1', 'frozen']
}

/** The query schema a route accepts under a style (`/v1` lists add `limit` and `cursor`). */
export function querySchemaOf(route: RouteDef, style: ApiStyle): TObject {
  const query = route.query as TObject | undefined
  const own = query?.properties ?? {}
  const props = route.list && style === 'v1' ? { ...own, ...pageQueryProperties } : own
  // Unknown parameters are refused unless the route says it takes any (a page reads its own).
  return Type.Object(props, { additionalProperties: query?.additionalProperties === true })
}

/** Methods a path may be asked for; the ones it does not serve answer 405 with `Allow`. */
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const
const ALLOW_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']

/**
 * Registers every route on the Elysia router under each of its mounts. A path asked for with a
 * method it does not serve answers 405 with `Allow` (not 404), and `OPTIONS` answers 204 with
 * `Allow` (the HTTP shell adds CORS headers to it when the origin is one the operator listed).
 */
export function mountRoutes(app: Elysia, routes: RouteDef[], deps: MountDeps): void {
  const served = new Map<string, Set<string>>()
  for (const route of routes) {
    for (const style of stylesOf(route)) {
      const run = compileRoute(route, style, deps)
      const path = mountedPath(route, style)
      served.set(path, (served.get(path) ?? new Set()).add(route.method))
      app.route(route.method, path, ({ request, params }) => run(request, params as Record<string, string>))
    }
  }
  for (const [path, methods] of served) {
    if (methods.has('GET')) methods.add('HEAD')
    methods.add('OPTIONS')
    const allow = ALLOW_ORDER.filter((m) => methods.has(m)).join(', ')
    app.route('OPTIONS', path, () => new Response(null, { status: 204, headers: { allow } }))
    for (const method of METHODS) {
      if (methods.has(method)) continue
      app.route(method, path, ({ request }) => {
        requestState(request).route = `${method} ${path}`
        throw fail('method_not_allowed', `${method} is not allowed here. Allowed: ${allow}.`, undefined, {
          allow,
        })
      })
    }
  }
}

function compileRoute(route: RouteDef, style: ApiStyle, deps: MountDeps) {
  const querySchema = querySchemaOf(route, style)
  // null: the route takes any parameter (its schema allows additional properties).
  const queryKeys =
    querySchema.additionalProperties === true ? null : new Set(Object.keys(querySchema.properties))
  const queryValidator = compileValidator(querySchema, 'query')
  const paramsValidator = route.params ? compileValidator(route.params, 'path') : null
  const bodyKind = route.bodyKind ?? 'json'
  const bodyValidator = route.body && bodyKind !== 'stream' ? compileValidator(route.body, 'body') : null
  const maxBody = route.maxBodyBytes ?? deps.maxBodyBytes
  const idempotency = idempotencyOf(route)
  const routeName = `${route.method} ${mountedPath(route, style)}`
  const failure = (state: RequestState, e: unknown): Response => {
    if (!(e instanceof ApiError)) state.error = e
    return errorResponse(e, style, state.requestId)
  }

  // Runs the handler; one that answers synchronously is answered without a promise. Errors are
  // the caller's to render: a replayable request stores them without logging them as failures.
  const invoke = (ctx: HandlerContext): Response | Promise<Response> => {
    const result = route.handler(ctx as unknown as Parameters<RouteDef['handler']>[0])
    if (result instanceof Promise) return result.then((r) => toResponse(route, style, r))
    return toResponse(route, style, result)
  }
  const proceed = (ctx: HandlerContext, state: RequestState, bodyBytes: Uint8Array | null) => {
    const key = idempotency === 'off' ? null : ctx.request.headers.get('idempotency-key')
    if (key === null) return invoke(ctx)
    if (!IDEMPOTENCY_KEY.test(key)) {
      throw fail('bad_request', 'Idempotency-Key must be 1 to 255 visible ASCII characters.')
    }
    const { pathname, search } = ctx.url
    const hash = deps.idempotency.fingerprint(route.method, `${pathname}${search}`, bodyBytes)
    // Unauthenticated routes share the `public` scope: they have no tenant to keep records under.
    const scope = ctx.principal?.workspaceId ?? 'public'
    return deps.idempotency.respond(
      scope,
      key,
      hash,
      () =>
        Promise.resolve()
          .then(() => invoke(ctx))
          .catch((e) => errorResponse(e, style, state.requestId)),
      idempotency === 'replay',
    )
  }
  const withBody = async (ctx: HandlerContext, state: RequestState, validator: Validator) => {
    try {
      const bytes = await readBody(ctx.request, maxBody)
      ctx.body = validator.parse(decodeBody(ctx.request, bytes, bodyKind as 'json' | 'form'))
      refuseBodyNul(bytes, ctx.body)
      return await proceed(ctx, state, bytes)
    } catch (e) {
      return failure(state, e)
    }
  }

  // Everything after the principal is known: at once when the authenticator answered synchronously.
  const serve = (
    request: Request,
    rawParams: Record<string, string>,
    state: RequestState,
    principal: Principal | null,
  ): Response | Promise<Response> => {
    state.workspaceId = principal?.workspaceId ?? null
    refusePathNul(request, rawParams)
    const query = parseQuery(request, queryKeys, queryValidator) as Record<string, unknown>
    const params = paramsValidator ? paramsValidator.parse(rawParams) : rawParams
    if (principal?.corpusIds) boundTo(route, principal, params as Record<string, unknown> | undefined)
    const page = route.list && style === 'v1' ? pageOf(query) : null
    const ctx = new HandlerContext(request, state, style, deps.clients, principal, query, params, page)
    const handle = (): Response | Promise<Response> => {
      if (bodyValidator) return withBody(ctx, state, bodyValidator)
      const answer = proceed(ctx, state, null)
      return answer instanceof Promise ? answer.catch((e) => failure(state, e)) : answer
    }
    const checked = route.precondition?.({ request, principal })
    return checked instanceof Promise ? checked.then(handle, (e) => failure(state, e)) : handle()
  }
  return authorized(route, routeName, deps, serve, failure)
}

/**
 * The route's entry: names the route on the request, authorizes it when it takes a credential and
 * serves it; a promise is awaited only when the credential's check returns one (the store's reads).
 */
function authorized(
  route: RouteDef,
  routeName: string,
  deps: MountDeps,
  serve: (
    request: Request,
    rawParams: Record<string, string>,
    state: RequestState,
    principal: Principal | null,
  ) => Response | Promise<Response>,
  failure: (state: RequestState, e: unknown) => Response,
) {
  return (request: Request, rawParams: Record<string, string>): Response | Promise<Response> => {
    const state = requestState(request)
    state.route = routeName
    try {
      if (route.auth === 'none') return serve(request, rawParams, state, null)
      const principal = authorize(route, request, state, deps)
      if (!(principal instanceof Promise)) return serve(request, rawParams, state, principal)
      return principal.then((p) => serve(request, rawParams, state, p)).catch((e) => failure(state, e))
    } catch (e) {
      return failure(state, e)
    }
  }
}

/**
 * The one check of a key bound to some bases, before any handler runs: a path naming another base
 * answers 404 as a missing base would, and a route acting on the whole workspace refuses it.
 */
function boundTo(route: RouteDef, principal: Principal, params: Record<string, unknown> | undefined): void {
  const corpusId = params?.corpus_id
  if (typeof corpusId === 'string') {
    if (!reachesBase(principal, corpusId)) throw notFound('Document base')
  } else if (route.boundKeys !== 'served') {
    throw fail('key_bound_to_bases')
  }
}

/** The query parameters of a request, validated; a URL without a query string is not parsed. */
function parseQuery(request: Request, allowed: Set<string> | null, validator: Validator): unknown {
  const raw: Record<string, string> = {}
  const unknown: string[] = []
  if (request.url.includes('?')) {
    for (const [k, v] of new URL(request.url).searchParams) {
      if (allowed && !allowed.has(k)) unknown.push(k)
      else if (!(k in raw)) raw[k] = v
    }
  }
  if (unknown.length > 0) {
    throw new ApiError(
      'validation_error',
      `Unknown query parameter: ${unknown.join(', ')}.`,
      unknown.map((k) => ({ loc: ['query', k], msg: 'Unknown query parameter', type: 'extra_forbidden' })),
    )
  }
  return validator.parse(raw)
}

function pageOf(query: Record<string, unknown>) {
  const limit = query.limit as number
  const cursor = query.cursor as string | undefined
  return { limit, after: cursor ? decodeCursor(cursor) : null }
}

function toResponse(route: RouteDef, style: ApiStyle, result: unknown): Response {
  if (result instanceof Response) return result
  if (result instanceof Reply) return jsonResponse(result.status, result.body, result.headers)
  if (route.list) {
    const list = result as ListResult<unknown>
    if (style === 'frozen') return jsonResponse(200, list.items)
    const headers: Record<string, string> = { 'x-total-count': String(list.total) }
    if (list.nextCursor) headers['x-next-cursor'] = list.nextCursor
    return jsonResponse(200, { items: list.items, next_cursor: list.nextCursor }, headers)
  }
  return jsonResponse(route.status ?? 200, result)
}

/** Re-exported so features can type their schemas without reaching into TypeBox paths. */
export type { TSchema }
