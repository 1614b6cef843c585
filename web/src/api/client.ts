/**
 * The console's one way to the API: same origin, the paths and bodies of the published OpenAPI
 * document (typed by `openapi-fetch` from `openapi.gen.ts`), the session's bearer token, and the
 * API's error body turned into an `ApiError` whose message is the API's own words. A 401 while
 * signed in ends the session and sends the user to sign-in, then back to where they were.
 *
 * Only `web/src/api` names a URL: pages call the functions of its area files (`bases.ts`,
 * `sources.ts`, ...), never `http` with a path of their own.
 */
import createClient from 'openapi-fetch'
import { navigate } from '../lib/navigate'
import type { paths } from './openapi.gen'
import { endSession, session } from './session'

/** An error the API answered (or the network gave), in the API's words. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Seconds to wait, from `Retry-After` (a 503 while the engine is busy, a 429). */
    readonly retryAfter: number | null = null,
    readonly details: unknown = undefined,
  ) {
    super(message)
  }
}

/** Sends a request; a non-2xx answer becomes an `ApiError` (and a 401 ends the session). */
export async function send(req: Request): Promise<Response> {
  let res: Response
  try {
    res = await fetch(req)
  } catch (e) {
    if ((e as Error).name === 'AbortError') throw e
    throw new ApiError(
      0,
      'network_error',
      'The server could not be reached. Check your connection and try again.',
    )
  }
  if (res.ok) return res
  throw await errorOf(res, req.headers.has('authorization'))
}

/** Adds the session's bearer token to a request, when signed in. */
function withSession(req: Request): Request {
  const token = session.value?.token
  if (token) req.headers.set('authorization', `Bearer ${token}`)
  return req
}

// `send` throws on every answer that is not a success, so a call through these clients either
// rejects with an `ApiError` or resolves with `data`: `openapi-fetch`'s `error` branch never happens.
const accept = { accept: 'application/json' }

/** The API as the signed-in user. */
export const http = createClient<paths>({ headers: accept, fetch: (req) => send(withSession(req)) })

/** The API without a token: sign-in, sign-up and the other public routes. */
export const publicHttp = createClient<paths>({ headers: accept, fetch: send })

/** The body of a call through `http` or `publicHttp` (which rejects on anything but success). */
export async function ok<T>(call: Promise<{ data?: T }>): Promise<T> {
  return (await call).data as T
}

/** A page of a `/v1` list route. */
export interface Page<T> {
  items: T[]
  next_cursor: string | null
}

/** Every item of a `/v1` list route, page by page through `next_cursor` (lists shown whole are small). */
export async function listAll<T>(page: (cursor: string | undefined) => Promise<Page<T>>): Promise<T[]> {
  const out: T[] = []
  let cursor: string | undefined
  do {
    const p = await page(cursor)
    out.push(...p.items)
    cursor = p.next_cursor ?? undefined
  } while (cursor)
  return out
}

/** The `ApiError` of a failed response. */
export async function errorOf(res: Response, hadSession = false): Promise<ApiError> {
  let code = 'http_error'
  let message = `The server answered ${res.status} ${res.statusText}.`
  let details: unknown
  try {
    const body = (await res.json()) as { error?: { code: string; message: string; details?: unknown } }
    if (body.error) {
      code = body.error.code
      message = body.error.message
      details = body.error.details
    }
  } catch {
    // Not JSON: keep the status line.
  }
  const retry = Number(res.headers.get('retry-after'))
  const error = new ApiError(
    res.status,
    code,
    detailed(message, details),
    Number.isFinite(retry) && retry > 0 ? retry : null,
    details,
  )
  if (res.status === 401 && hadSession) {
    endSession('expired')
    navigate(`/console/sign-in?next=${encodeURIComponent(location.pathname + location.search)}`)
  }
  return error
}

/** A validation failure names the field: "name: String should have at most 200 characters". */
function detailed(message: string, details: unknown): string {
  if (!Array.isArray(details) || details.length === 0) return message
  const first = details[0] as { loc?: unknown[]; msg?: string }
  if (!first.msg) return message
  const field = (first.loc ?? []).filter((p) => p !== 'body' && p !== 'query').join('.')
  return field ? `${field}: ${first.msg}` : first.msg
}
