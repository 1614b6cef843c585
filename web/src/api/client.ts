/**
 * The console's one way to the API: same origin, `/v1` routes, the session's bearer token, and the
 * API's error body turned into an `ApiError` whose message is the API's own words. A 401 while
 * signed in ends the session and sends the user to sign-in, then back to where they were.
 */
import { navigate } from '../lib/navigate'
import { endSession, session } from './session'
import type { Page } from './types'

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

export interface RequestOptions {
  method?: string
  /** A JSON body. */
  json?: unknown
  /** A form body (`application/x-www-form-urlencoded`), as the OAuth2 sign-in wants. */
  form?: Record<string, string>
  query?: Record<string, string | number | boolean | undefined>
  signal?: AbortSignal
  /** Send no session token (sign-in, sign-up and other public routes). */
  anonymous?: boolean
}

/** The request a call makes: method, `/v1` URL and headers (shared by `api` and streams). */
export function buildRequest(path: string, opts: RequestOptions = {}): Request {
  const url = new URL(`/v1${path}`, location.origin)
  for (const [k, v] of Object.entries(opts.query ?? {}))
    if (v !== undefined) url.searchParams.set(k, String(v))
  const headers = new Headers({ accept: 'application/json' })
  const token = session.value?.token
  if (token && !opts.anonymous) headers.set('authorization', `Bearer ${token}`)
  let body: BodyInit | undefined
  if (opts.json !== undefined) {
    headers.set('content-type', 'application/json')
    body = JSON.stringify(opts.json)
  } else if (opts.form) {
    body = new URLSearchParams(opts.form)
  }
  return new Request(url, {
    method: opts.method ?? (body ? 'POST' : 'GET'),
    headers,
    body,
    signal: opts.signal,
  })
}

/** Calls the API and answers its JSON (undefined for 204); throws `ApiError` on any failure. */
export async function api<T>(path: string, opts: RequestOptions = {}): Promise<T> {
  const res = await send(buildRequest(path, opts))
  if (res.status === 204) return undefined as T
  return (await res.json()) as T
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
    endSession()
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

/** Every item of a `/v1` list route, following `next_cursor` (lists the console shows are small). */
export async function listAll<T>(path: string, opts: RequestOptions = {}): Promise<T[]> {
  const out: T[] = []
  let cursor: string | undefined
  do {
    const page = await api<Page<T>>(path, { ...opts, query: { ...opts.query, limit: 100, cursor } })
    out.push(...page.items)
    cursor = page.next_cursor ?? undefined
  } while (cursor)
  return out
}
