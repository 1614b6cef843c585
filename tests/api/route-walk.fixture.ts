import { expect } from 'bun:test'
import { Kind, type TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import fc from 'fast-check'
import { SCOPES, type Scope } from '../../src/platform/auth/principal'
import { mountedPath, querySchemaOf, stylesOf } from '../../src/platform/http/mount'
import type { ApiStyle, RouteDef } from '../../src/platform/http/route'
import type { TestApp } from '../helpers/app'
import { addMember, bearer, mintKey, signUp } from './accounts.fixture'
import { createBase } from './ingest.fixture'

/**
 * Helpers of the route walk (route-walk.test.ts): every route under each of its mounts, a valid
 * request to each made from its schemas, the lists of routes that are public or write without a
 * scope on purpose, and two workspaces holding one object for each id a path can name.
 */

/** A route as served under one mount. */
export interface Mounted {
  route: RouteDef
  style: ApiStyle
  /** `METHOD /mounted/path`, as findings name it. */
  name: string
}

/** Every route under every mount it is served on. */
export function mountedRoutes(routes: RouteDef[]): Mounted[] {
  return routes.flatMap((route) =>
    stylesOf(route).map((style) => ({ route, style, name: `${route.method} ${mountedPath(route, style)}` })),
  )
}

/**
 * The routes anyone may call, each with the reason (spec, Authentication, item 10, unless said).
 * A route declared `auth: 'none'` that is not listed here is a finding: opening a route to the
 * world is a decision someone writes down, not a default.
 */
export const PUBLIC_ROUTES: Record<string, string> = {
  'GET /': 'the service root',
  'GET ': 'the /v1 root',
  'GET /ready': "a load balancer's readiness probe (the database answers)",
  'GET /openapi.json': 'the API description (spec, Service and versions)',
  'GET /docs': 'the browsable API description (spec, Service and versions)',
  'GET /docs/assets/:file': "the browsable API description's viewer",
  'GET /auth/config': 'sign-up mode and sign-in options, read before signing in',
  'GET /plans': 'the plans and their prices, read before signing up (spec, Authentication 10)',
  'POST /auth/register': 'sign-up',
  'POST /auth/login': 'sign-in',
  'GET /auth/verify-email': 'verification, by the emailed token',
  'POST /auth/resend-verification': 'verification',
  'POST /auth/request-access': 'sign-up while registration is invite-only',
  'POST /auth/forgot-password': 'reset',
  'POST /auth/reset-password': 'reset, by the emailed grant',
  'POST /auth/invite-info': 'invite routes, by the invitation token',
  'POST /auth/accept-invite': 'invite routes, by the invitation token',
  'POST /auth/sso/start': "SSO start: a work address is sent to its workspace's identity provider",
  'GET /auth/sso/callback':
    'the identity provider redirects the browser back; the sealed flow cookie and the ID token are the proof',
  'GET /auth/google/login': 'social sign-in: the browser is sent to Google before anyone is signed in',
  'GET /auth/google/callback':
    'social sign-in: Google sends the browser back here; the flow cookie, state and ID token prove it',
  'POST /auth/link-info': 'linking a social identity, by the signed link ticket',
  'POST /auth/link': "linking a social identity, by the signed link ticket and the account's password",
  'GET /legal/:document':
    'public by the spec (Authentication 10): a legal document is read before anyone signs up or accepts it',
  'POST /billing/webhook':
    "Stripe's events: no bearer credential, authenticated by the Stripe-Signature header over the raw body (spec, Authentication 10)",
  'GET /platform/info':
    'public by the spec (Authentication 10): storage, region, egress, accepted file types',
  // The console is a single-page app: its pages and assets are public, its data comes from the API.
  'GET /console': 'the console page',
  'GET /console/*': 'the console page',
  'GET /console/assets/:file': 'the console assets',
}

/**
 * Routes that write without declaring an API-key scope, each with the reason. Any other write
 * (a method other than GET) must declare the scope a key needs for it, or refuse keys outright.
 */
export const UNSCOPED_WRITES: Record<string, string> = {
  'POST /mcp-http/': 'the hosted MCP server: each tool checks its own scope (query_base needs query)',
  'DELETE /mcp-http/': 'the hosted MCP server: answers 405 in stateless mode',
}

/** Whether a route refuses one kind of credential whatever the ids (it says so in `errors`). */
export function refuses(route: RouteDef, kind: 'session' | 'api_key'): boolean {
  return route.errors?.includes(kind === 'session' ? 'api_key_required' : 'session_required') ?? false
}

/** Path parameters that are not tenant ids (a console asset's file name, a legal document's name). */
const NOT_TENANT = new Set(['file', 'document'])

/** The tenant ids in a route's path, from its `:param` segments. */
export function tenantParams(route: RouteDef): string[] {
  return [...route.path.matchAll(/:([a-z_]+)/g)].map((m) => m[1]!).filter((p) => !NOT_TENANT.has(p))
}

/** Example strings for the formats route schemas use (TypeBox cannot invent them). */
const FORMAT_EXAMPLES: Record<string, string> = {
  name: 'Walk',
  text: 'What does the walk check?',
  email: 'walk@example.com',
  'date-time': '2099-01-01T00:00:00Z',
  uri: 'https://example.com/',
  binary: '',
}

/** The schema with a default on every string, so that `Value.Create` gives readable, valid text. */
function withStringDefaults(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withStringDefaults)
  if (schema === null || typeof schema !== 'object') return schema
  // A spread keeps TypeBox's symbol keys (Kind, OptionalKind); only the string keys nest.
  const out: Record<string | symbol, unknown> = { ...(schema as Record<string | symbol, unknown>) }
  for (const key of Object.keys(out)) out[key] = withStringDefaults(out[key])
  if (out[Kind] === 'String' && !('default' in out)) out.default = stringExample(out)
  return out
}

function stringExample(s: Record<string, unknown>): string {
  if (typeof s.format === 'string') {
    const example = FORMAT_EXAMPLES[s.format]
    if (example === undefined) throw new Error(`The route walk has no example of format ${s.format}.`)
    return example
  }
  // A fixed seed: the same string on every run.
  if (typeof s.pattern === 'string')
    return fc.sample(fc.stringMatching(new RegExp(s.pattern)), { seed: 1 })[0]!
  return 'walk'.padEnd(Number(s.minLength ?? 0), 'k').slice(0, Number(s.maxLength ?? 1e9))
}

/** The smallest value a schema accepts, with readable strings. */
export function exampleOf(schema: TSchema): unknown {
  return Value.Create(withStringDefaults(schema) as TSchema)
}

/** Stand-ins for ids in the credential walks: the check comes before any id is looked up. */
const MISSING_ID = 'missing_walk_id'

/**
 * A request to a mounted route with valid inputs (the required query, a body its schema accepts),
 * so that what answers is the credential or the tenant check, not validation. `ids` fills the
 * path's parameters; any it lacks get an id that names nothing.
 */
export function requestTo(
  m: Mounted,
  token: string | null,
  ids: Record<string, string> = {},
): { path: string; init: RequestInit } {
  const path = mountedPath(m.route, m.style)
    .replace(/:([a-z_]+)/g, (_, p: string) => encodeURIComponent(ids[p] ?? MISSING_ID))
    .replace('*', 'walk')
  const query = new URLSearchParams()
  for (const [k, v] of Object.entries(exampleOf(querySchemaOf(m.route, m.style)) as object)) {
    query.set(k, String(v))
  }
  const headers: Record<string, string> = token ? bearer(token) : {}
  let body: BodyInit | undefined
  const kind = m.route.bodyKind ?? 'json'
  if (kind === 'stream' && m.route.method !== 'GET') {
    // Uploads and raw bodies read their own: one small file as a multipart form.
    const form = new FormData()
    form.append('files', new File(['walk'], 'walk.txt', { type: 'text/plain' }))
    body = form
  } else if (m.route.body && kind === 'form') {
    headers['content-type'] = 'application/x-www-form-urlencoded'
    body = new URLSearchParams(exampleOf(m.route.body) as Record<string, string>).toString()
  } else if (m.route.body) {
    headers['content-type'] = 'application/json'
    // A body naming another object (a source's connection) names the walk's own, as a caller would.
    const example = exampleOf(m.route.body) as Record<string, unknown>
    for (const k of Object.keys(example)) if (k.endsWith('_id') && ids[k]) example[k] = ids[k]
    body = JSON.stringify(example)
  }
  const search = query.size > 0 ? `?${query}` : ''
  return { path: `${path}${search}`, init: { method: m.route.method, headers, body } }
}

/**
 * What a walk saw: the status, the `/v1` error code, and the message (`/v1` envelope or frozen
 * `detail`); `null`s for a success or a body that is not a JSON error (a stream, a CSV, a page).
 */
export async function outcome(
  res: Response,
): Promise<{ status: number; code: string | null; message: string | null }> {
  const text = await res.text()
  try {
    const body = JSON.parse(text) as { error?: { code?: string; message?: string }; detail?: unknown }
    const detail = typeof body.detail === 'string' ? body.detail : null
    return { status: res.status, code: body.error?.code ?? null, message: body.error?.message ?? detail }
  } catch {
    return { status: res.status, code: null, message: null }
  }
}

/** Every scope but one. */
const without = (scope: Scope): Scope[] => SCOPES.filter((s) => s !== scope)

/** A workspace with one of everything a path can name, plus keys each lacking one scope. */
export interface Tenant {
  workspaceId: string
  token: string
  /** A member's session (not an admin). */
  memberToken: string
  /** A key holding every scope. */
  adminKey: string
  /** A key holding every scope, bound to this workspace's base (`ids.corpus_id`) only. */
  boundKey: string
  /** Keys holding every scope but the one named. */
  lacking: Record<Scope, string>
  /** An id of this workspace for each tenant parameter a path can hold. */
  ids: Record<string, string>
}

/** The path parameters that name a base or something in one: what a key bound to bases is kept to. */
export const BASE_PARAMS = ['corpus_id', 'document_id', 'run_id', 'job_id', 'source_id'] as const

/** The requests a walk's set-up makes with an admin's session, expecting `status`. */
function caller(t: TestApp, token: string) {
  return async <T>(path: string, init: RequestInit & { json?: unknown } = {}, status = 200): Promise<T> => {
    const res = await t.request(path, { ...init, headers: bearer(token) })
    expect(res.status).toBe(status)
    return (await res.json()) as T
  }
}

/**
 * A base of the workspace with an object for each id a base's paths can hold: a document (an
 * upsert, which also records a sync run), an onboarding job and a source on `connectionId`.
 */
export async function baseObjects(
  t: TestApp,
  token: string,
  connectionId: string,
): Promise<Record<(typeof BASE_PARAMS)[number], string>> {
  const call = caller(t, token)
  const corpusId = await createBase(t, token, 'Walk')
  const upsert = await call<{ document: { id: string }; sync_run: { id: string } }>(
    `/v1/corpora/${corpusId}/documents/upsert`,
    { method: 'POST', json: { path: 'walk.txt', content: 'The route walk checks every route.' } },
  )
  const job = await call<{ id: string }>(`/v1/corpora/${corpusId}/train`, { method: 'POST' })
  const source = await call<{ id: string }>(
    `/v1/corpora/${corpusId}/sources`,
    { method: 'POST', json: { connection_id: connectionId, folder: 'docs/' } },
    201,
  )
  return {
    corpus_id: corpusId,
    document_id: upsert.document.id,
    run_id: upsert.sync_run.id,
    job_id: job.id,
    source_id: source.id,
  }
}

/**
 * Makes a workspace and, through the API, an object for each id a route path can hold: a base
 * with its objects (`baseObjects`), a key, a connection, an open invitation and a member.
 */
export async function tenant(t: TestApp): Promise<Tenant> {
  const admin = await signUp(t)
  const member = await addMember(t, admin.token)
  const adminKey = await mintKey(t, admin.token, [...SCOPES])
  const lacking = {} as Record<Scope, string>
  for (const s of SCOPES) {
    lacking[s] = (await mintKey(t, admin.token, without(s))).key
  }
  const call = caller(t, admin.token)
  // A bucket nobody listens at: creating a source does not reach it; validating it is a 502.
  const connection = await call<{ id: string }>(
    '/v1/connections',
    {
      method: 'POST',
      json: {
        kind: 's3',
        name: 'Walk bucket',
        settings: { endpoint: 'http://127.0.0.1:9', bucket: 'walk' },
        secrets: { access_key: 'walk-access', secret_key: 'walk-secret-key' },
      },
    },
    201,
  )
  const base = await baseObjects(t, admin.token, connection.id)
  // A public address as a literal (no lookup); the walk never runs the queue, so nothing is sent.
  const webhook = await call<{ id: string }>(
    '/v1/webhooks',
    { method: 'POST', json: { url: 'https://93.184.216.34/walk', events: ['document.ready'] } },
    201,
  )
  const delivery = await call<{ delivery_id: string }>(
    `/v1/webhooks/${webhook.id}/test`,
    { method: 'POST' },
    202,
  )
  const boundKey = await mintKey(t, admin.token, [...SCOPES], { corpus_ids: [base.corpus_id] })
  await call('/v1/admin/invites', { method: 'POST', json: { email: `pending-${admin.userId}@example.com` } })
  const members = await call<{ invites: { id: string }[] }>('/v1/admin/members')
  return {
    workspaceId: admin.workspaceId,
    token: admin.token,
    memberToken: member.token,
    adminKey: adminKey.key,
    boundKey: boundKey.key,
    lacking,
    ids: {
      ...base,
      key_id: adminKey.id,
      invite_id: members.invites[0]!.id,
      user_id: member.userId,
      connection_id: connection.id,
      webhook_id: webhook.id,
      delivery_id: delivery.delivery_id,
    },
  }
}

/** Every row of the database that names one of `ids`, by table, and every stored object's key. */
export async function rowsNaming(t: TestApp, ids: string[]): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {}
  const naming = (rows: Record<string, unknown>[]) =>
    rows
      .map((row) =>
        JSON.stringify(row, (_, v) => (v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v)),
      )
      .filter((row) => ids.some((id) => row.includes(id)))
  for (const { name } of await t.sql.all<{ name: string }>(
    t.sql.engine === 'postgres' ? PG_TABLES : SQLITE_TABLES,
  )) {
    if (name.startsWith('engine_')) continue
    const rows = naming(await t.sql.all(`SELECT * FROM "${name}"`))
    if (rows.length > 0) out[name] = rows.sort()
  }
  // The engine's index is in the SQLite file on both engines (docs/data-layer.md).
  const index = t.db.$client
  for (const { name } of index.query<{ name: string }, []>(SQLITE_TABLES).all()) {
    if (!name.startsWith('engine_')) continue
    const rows = naming(index.query<Record<string, unknown>, []>(`SELECT * FROM "${name}"`).all())
    if (rows.length > 0) out[name] = rows.sort()
  }
  const objects: string[] = []
  for await (const o of t.deps.objects.list('')) objects.push(o.key)
  out['(objects)'] = objects.sort()
  return out
}

// FTS5 keeps its index in shadow tables of opaque blobs; the rows it indexes are read instead.
const SQLITE_TABLES =
  "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'engine_fts%' ORDER BY name"
const PG_TABLES =
  "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name"
