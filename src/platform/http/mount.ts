import { type TObject, type TSchema, Type } from '@sinclair/typebox'
import type { Elysia } from 'elysia'
import type { Principal } from '../auth/principal'
import { sha256Hex } from '../crypto/hash'
import { ApiError, fail } from '../errors/errors'
import { decodeCursor, type ListResult } from '../paging/paging'
import { IdempotencyStore, type StoredResponse } from './idempotency'
import { jsonTooDeep, MAX_JSON_DEPTH } from './json-depth'
import { isLoopback } from './loopback'
import { pageQueryProperties } from './pagination'
import { errorResponse, jsonResponse } from './render'
import { requestState } from './request-state'
import { type ApiStyle, Reply, type RouteDef } from './route'
import { compileValidator, type Validator } from './validation'

/**
 * Resolves the credential of a request; throws a 401 ApiError when there is none or it is bad.
 * Synchronous: credentials are checked against SQLite synchronously on every request, so the
 * request path needs no promise for it.
 */
export type Authenticator = (request: Request, ip: string) => Principal

/** What the mount needs from the outside world. */
export interface MountDeps {
  maxBodyBytes: number
  /** Read the client address from X-Forwarded-For (behind a trusted reverse proxy). */
  trustProxy: boolean
  idempotency: IdempotencyStore
  authenticate: Authenticator
}

const IDEMPOTENT_METHODS = new Set(['POST', 'PUT', 'DELETE'])
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
      app.route(route.method, path, ({ request, params }) =>
        run(request, params as Record<string, string>, clientOf(request, deps.trustProxy)),
      )
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

/**
 * Where a request comes from. The socket peer, or with a trusted proxy the first X-Forwarded-For
 * address. A request handed to the app in process (tests, tools) has no socket: it comes from this
 * machine. `loopback` is true only for a loopback socket with no proxy trusted: behind a proxy the
 * socket is always the proxy, and the forwarded address is only the proxy's word.
 */
function clientOf(request: Request, trustProxy: boolean): { ip: string; loopback: boolean } {
  const peer = requestState(request).peer ?? '127.0.0.1'
  const forwarded = trustProxy ? request.headers.get('x-forwarded-for')?.split(',')[0]?.trim() : undefined
  return { ip: forwarded || peer, loopback: !trustProxy && isLoopback(peer) }
}

function compileRoute(route: RouteDef, style: ApiStyle, deps: MountDeps) {
  const querySchema = querySchemaOf(route, style)
  // null: the route takes any parameter (its schema allows additional properties).
  const queryKeys =
    querySchema.additionalProperties === true ? null : new Set(Object.keys(querySchema.properties))
  const queryValidator = compileValidator(querySchema, 'query')
  const paramsValidator = route.params ? compileValidator(route.params, 'path') : null
  const bodyValidator: Validator | null = route.body ? compileValidator(route.body, 'body') : null
  const bodyKind = route.bodyKind ?? 'json'
  const maxBody = route.maxBodyBytes ?? deps.maxBodyBytes
  const idempotent = route.idempotent ?? (IDEMPOTENT_METHODS.has(route.method) && bodyKind !== 'stream')
  const routeName = `${route.method} ${mountedPath(route, style)}`

  return async (
    request: Request,
    rawParams: Record<string, string>,
    { ip, loopback }: { ip: string; loopback: boolean },
  ): Promise<Response> => {
    const state = requestState(request)
    state.route = routeName
    try {
      const url = new URL(request.url)
      const principal = route.auth === 'none' ? null : authorize(route, request, ip, deps)
      state.workspaceId = principal?.workspaceId ?? null

      const query = parseQuery(url, queryKeys, queryValidator) as Record<string, unknown>
      const params = paramsValidator ? paramsValidator.parse(rawParams) : rawParams
      const page = route.list && style === 'v1' ? pageOf(query) : null

      let bodyBytes: Uint8Array | null = null
      let body: unknown
      if (bodyValidator && bodyKind !== 'stream') {
        bodyBytes = await readBody(request, maxBody)
        body = bodyValidator.parse(decodeBody(request, bodyBytes, bodyKind))
      }

      const execute = async (): Promise<Response> => {
        const result = await route.handler({
          request,
          url,
          requestId: state.requestId,
          style,
          ip,
          loopback,
          body,
          query,
          params,
          principal: principal as Principal,
          page,
        })
        return toResponse(route, style, result)
      }

      const key = request.headers.get('idempotency-key')
      if (!idempotent || key === null) return await execute()
      if (!IDEMPOTENCY_KEY.test(key)) {
        throw fail('bad_request', 'Idempotency-Key must be 1 to 255 visible ASCII characters.')
      }
      const hash = sha256Hex(`${route.method}\n${url.pathname}${url.search}\n${sha256Hex(bodyBytes ?? '')}`)
      const scope = principal?.workspaceId ?? 'public'
      const { response, replayed } = await deps.idempotency.execute(scope, key, hash, async () =>
        stored(await execute().catch((e) => errorResponse(e, style, state.requestId))),
      )
      const headers = replayed ? { ...response.headers, 'idempotent-replayed': 'true' } : response.headers
      return new Response(response.body.length > 0 ? (response.body as unknown as BodyInit) : null, {
        status: response.status,
        headers,
      })
    } catch (e) {
      if (!(e instanceof ApiError)) state.error = e
      return errorResponse(e, style, state.requestId)
    }
  }
}

function authorize(route: RouteDef, request: Request, ip: string, deps: MountDeps): Principal {
  const principal = deps.authenticate(request, ip)
  if (route.scope && principal.scopes !== null && !principal.scopes.includes(route.scope)) {
    throw fail('missing_scope', `API key missing required scope: ${route.scope}`)
  }
  if (route.auth === 'admin' && principal.role !== 'admin') throw fail('admin_required')
  return principal
}

function parseQuery(url: URL, allowed: Set<string> | null, validator: Validator): unknown {
  const raw: Record<string, string> = {}
  const unknown: string[] = []
  for (const [k, v] of url.searchParams) {
    if (allowed && !allowed.has(k)) unknown.push(k)
    else if (!(k in raw)) raw[k] = v
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

/** Reads a request body with a hard cap, refusing early on a declared length over it. */
export async function readBody(request: Request, limit: number): Promise<Uint8Array> {
  const declared = request.headers.get('content-length')
  if (declared !== null && Number(declared) > limit) throw tooLarge(limit)
  if (!request.body) return new Uint8Array()
  const reader = request.body.getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    total += value.byteLength
    if (total > limit) {
      await reader.cancel()
      throw tooLarge(limit)
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks)
}

function tooLarge(limit: number): ApiError {
  return fail('payload_too_large', `The request body exceeds the limit of ${limit} bytes.`, { limit })
}

function decodeBody(request: Request, bytes: Uint8Array, kind: 'json' | 'form'): unknown {
  if (bytes.length === 0) return undefined
  const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase()
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes)
  if (kind === 'form') {
    if (type !== 'application/x-www-form-urlencoded') {
      throw fail(
        'unsupported_media_type',
        `Expected application/x-www-form-urlencoded, got ${type || 'none'}.`,
      )
    }
    return Object.fromEntries(new URLSearchParams(text))
  }
  if (type !== 'application/json' && !type.endsWith('+json')) {
    throw fail('unsupported_media_type', `Expected application/json, got ${type || 'none'}.`)
  }
  if (jsonTooDeep(text)) {
    throw new ApiError('validation_error', `The JSON body nests deeper than ${MAX_JSON_DEPTH} levels.`, [
      { loc: ['body'], msg: `Nesting deeper than ${MAX_JSON_DEPTH} levels`, type: 'too_deep' },
    ])
  }
  try {
    return JSON.parse(text)
  } catch (e) {
    throw fail('malformed_json', `The request body is not valid JSON: ${(e as Error).message}`)
  }
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

async function stored(res: Response): Promise<StoredResponse> {
  return {
    status: res.status,
    headers: IdempotencyStore.replayableHeaders(res.headers),
    body: new Uint8Array(await res.arrayBuffer()),
  }
}

/** Re-exported so features can type their schemas without reaching into TypeBox paths. */
export type { TSchema }
