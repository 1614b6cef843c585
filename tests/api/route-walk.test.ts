import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Type } from '@sinclair/typebox'
import { notFound } from '../../src/platform/errors/errors'
import { defineRoute, type RouteDef } from '../../src/platform/http/route'
import type { TestApp } from '../helpers/app'
import { authApp } from './accounts.fixture'
import {
  BASE_PARAMS,
  baseObjects,
  type Mounted,
  mountedRoutes,
  outcome,
  PUBLIC_ROUTES,
  refuses,
  requestTo,
  rowsNaming,
  type Tenant,
  tenant,
  tenantParams,
  UNSCOPED_WRITES,
} from './route-walk.fixture'

// Issue 20: checks generated from the route table, on every mount of every route. A route
// is covered the day it is added: no credential → 401, a key without the route's scope → 403, an
// id of another workspace → 404 that changes nothing. Each walk lists what failed, so a failure
// names every route at once, and the last test shows each walk catching a route added unprotected.

/** What a mounted route answered, when it was not what the walk expected. */
async function check(
  t: TestApp,
  m: Mounted,
  sent: { path: string; init: RequestInit },
  status: number,
  code: string,
  message?: string,
): Promise<string | null> {
  const got = await outcome(await t.request(sent.path, sent.init))
  // The frozen mount answers `{detail}` without a code; its status and message are still checked.
  const ok =
    got.status === status &&
    (m.style === 'frozen' || got.code === code) &&
    (message === undefined || got.message === message)
  return ok
    ? null
    : `${m.name} (${sent.path}): ${[got.status, got.code, got.message].filter((x) => x !== null).join(' ')}`
}

/** Routes that answer anything but 401 without a credential, and public routes nobody listed. */
async function unprotected(t: TestApp): Promise<string[]> {
  const findings: string[] = []
  for (const m of mountedRoutes(t.routes)) {
    if (m.route.auth === 'none') {
      if (!(`${m.route.method} ${m.route.path}` in PUBLIC_ROUTES)) {
        findings.push(`${m.name} is public but not on the list of public routes`)
      }
      continue
    }
    const found = await check(t, m, requestTo(m, null), 401, 'unauthorized', 'Not authenticated.')
    if (found) findings.push(found)
  }
  return findings
}

/** Writes that a key of any scope may make: no scope declared, keys not refused, not listed. */
function unscopedWrites(routes: RouteDef[]): string[] {
  return routes
    .filter((r) => r.auth !== 'none' && r.method !== 'GET' && !r.scope && !refuses(r, 'api_key'))
    .map((r) => `${r.method} ${r.path}`)
    .filter((name) => !(name in UNSCOPED_WRITES))
}

/**
 * Routes that need a key's `admin` scope but let a member's session in: a key without `admin`
 * acts as a member (spec, Authentication 5), so a session must be an admin's for the same route.
 */
function adminScopeOnly(routes: RouteDef[]): string[] {
  return routes.filter((r) => r.scope === 'admin' && r.auth !== 'admin').map((r) => `${r.method} ${r.path}`)
}

/** Scoped routes that do not answer 403 `missing_scope` to a key holding every other scope. */
async function underScoped(t: TestApp, a: Tenant): Promise<string[]> {
  const findings: string[] = []
  for (const m of mountedRoutes(t.routes)) {
    const scope = m.route.scope
    if (!scope) continue
    const sent = requestTo(m, a.lacking[scope])
    const found = await check(t, m, sent, 403, 'missing_scope', `API key missing required scope: ${scope}`)
    if (found) findings.push(found)
  }
  return findings
}

/** Admin routes that do not answer 403 to a member's session and to a key acting as a member. */
async function notAdminOnly(t: TestApp, a: Tenant): Promise<string[]> {
  const findings: string[] = []
  for (const m of mountedRoutes(t.routes)) {
    if (m.route.auth !== 'admin') continue
    const member = await check(t, m, requestTo(m, a.memberToken), 403, 'admin_required')
    // A key without `admin` acts as a member; a route that also needs the scope says so first.
    const code = m.route.scope === 'admin' ? 'missing_scope' : 'admin_required'
    const key = await check(t, m, requestTo(m, a.lacking.admin), 403, code)
    findings.push(...[member, key].filter((f) => f !== null))
  }
  return findings
}

/**
 * Routes with a tenant id that answer anything but 404 when called by workspace `a` with ids of
 * workspace `b`: all of the path's ids from `b`, and (for paths with several) each of them from
 * `b` with the others `a`'s own, so a document is looked up in its base, not only by its id. Each
 * credential kind the route accepts: `a`'s admin session and `a`'s key holding every scope.
 */
async function leaks(t: TestApp, a: Tenant, b: Tenant): Promise<string[]> {
  const findings: string[] = []
  for (const m of mountedRoutes(t.routes)) {
    const params = tenantParams(m.route)
    if (params.length === 0) continue
    const unknown = params.filter((p) => !(p in b.ids))
    if (unknown.length > 0) {
      findings.push(`${m.name}: the walk makes no :${unknown.join(', :')} (add one to tenant())`)
      continue
    }
    const foreign = Object.fromEntries(params.map((p) => [p, b.ids[p]!]))
    const variants = [foreign]
    if (params.length > 1) for (const p of params) variants.push({ ...a.ids, [p]: b.ids[p]! })
    const credentials = [
      ...(refuses(m.route, 'session') ? [] : [a.token]),
      ...(refuses(m.route, 'api_key') ? [] : [a.adminKey]),
    ]
    for (const ids of variants) {
      for (const token of credentials) {
        const found = await check(t, m, requestTo(m, token, ids), 404, 'not_found')
        if (found) findings.push(found)
      }
    }
  }
  return findings
}

/** Whether a route's path names a base or something in one (a document, job, run or source). */
const namesBase = (route: RouteDef) =>
  tenantParams(route).some((p) => (BASE_PARAMS as readonly string[]).includes(p))

/**
 * Issue 35: what `a`'s key bound to its base A reaches of base B (`sibling`, in the same workspace).
 * Every route naming B's objects answers 404 (all of them B's, and each alone among A's); every
 * route naming no base and not declared to serve bound keys refuses with 403 `key_bound_to_bases`;
 * and what a bound key reads, from the routes it is served (with A's ids), names nothing of B.
 */
async function boundLeaks(t: TestApp, a: Tenant, sibling: Record<string, string>): Promise<string[]> {
  const findings: string[] = []
  const theirs = Object.values(sibling)
  // Deletions last, deepest path first: one that got through must not hide what comes after it.
  const last = (m: Mounted) => (m.route.method === 'DELETE' ? 1000 - m.route.path.length : 0)
  for (const m of mountedRoutes(t.routes).sort((x, y) => last(x) - last(y))) {
    if (m.route.auth === 'none' || refuses(m.route, 'api_key')) continue
    const served = namesBase(m.route) || m.route.boundKeys === 'served'
    if (namesBase(m.route)) {
      const variants = [{ ...a.ids, ...sibling }]
      for (const p of tenantParams(m.route)) if (p in sibling) variants.push({ ...a.ids, [p]: sibling[p]! })
      for (const ids of variants) {
        const found = await check(t, m, requestTo(m, a.boundKey, ids), 404, 'not_found')
        if (found) findings.push(found)
      }
    } else if (!served) {
      const found = await check(t, m, requestTo(m, a.boundKey, a.ids), 403, 'key_bound_to_bases')
      if (found) findings.push(found)
    }
    if (!served || m.route.method !== 'GET') continue
    const sent = requestTo(m, a.boundKey, a.ids)
    const text = await (await t.request(sent.path, sent.init)).text()
    const shown = theirs.filter((id) => text.includes(id))
    if (shown.length > 0) findings.push(`${m.name} (${sent.path}) shows base B's ${shown.join(', ')}`)
  }
  return findings
}

/**
 * The control of `leaks`: the same requests from the owner of the ids reach the handler, so the
 * 404s above come from the tenant check and not from a request the walk built wrong (an id of the
 * wrong kind, an invalid body). Deletions go last, deepest path first, each on one mount only (the
 * other mount would find the thing gone). `bound`: the same for the owner's key bound to its base,
 * on every route naming a base that takes keys, so that `boundLeaks`'s 404s are the binding's.
 */
async function unreached(t: TestApp, owner: Tenant, bound = false): Promise<string[]> {
  const walked = mountedRoutes(t.routes).filter((m) =>
    bound ? namesBase(m.route) && !refuses(m.route, 'api_key') : tenantParams(m.route).length > 0,
  )
  const last = (m: Mounted) => (m.route.method === 'DELETE' ? 1000 - m.route.path.length : 0)
  const deleted = new Set<RouteDef>()
  const findings: string[] = []
  for (const m of walked.sort((x, y) => last(x) - last(y))) {
    if (deleted.has(m.route)) continue
    if (m.route.method === 'DELETE') deleted.add(m.route)
    const token = bound ? owner.boundKey : refuses(m.route, 'session') ? owner.adminKey : owner.token
    const sent = requestTo(m, token, owner.ids)
    const got = await outcome(await t.request(sent.path, sent.init))
    if (got.status === 404 || got.code === 'validation_error' || got.code === 'key_bound_to_bases') {
      findings.push(`${m.name} (${sent.path}) to its owner: ${got.status} ${got.message}`)
    }
  }
  return findings
}

let t: TestApp
let a: Tenant
let b: Tenant
/** Base B of `a`'s workspace, with its objects: what `a.boundKey` must not reach. */
let sibling: Record<string, string>
beforeAll(async () => {
  // The walk's bucket is on loopback (nobody listens there), so the server lets sources reach it.
  t = authApp({ env: { ENGRAM_SOURCES_ALLOW_LOOPBACK: 'true' } })
  a = await tenant(t)
  b = await tenant(t)
  sibling = await baseObjects(t, a.token, a.ids.connection_id!)
})
afterAll(() => t?.close())

describe('the route walk', () => {
  test('every route that needs a credential answers 401 without one, and every public route is listed', async () => {
    expect(await unprotected(t)).toEqual([])
  })

  test('every scoped route answers 403 naming its scope to a key holding every other scope', async () => {
    expect(await underScoped(t, a)).toEqual([])
  })

  test("every admin route answers 403 to a member's session and to a key without the admin scope", async () => {
    expect(await notAdminOnly(t, a)).toEqual([])
  })

  test("every route that needs a key's admin scope refuses a member's session too", () => {
    expect(adminScopeOnly(t.routes)).toEqual([])
  })

  test('every route that writes declares the scope a key needs for it, refuses keys, or says why not', () => {
    expect(unscopedWrites(t.routes)).toEqual([])
  })

  test("every route with a tenant id answers 404 to another workspace's ids and changes nothing there", async () => {
    const theirs = [b.workspaceId, ...Object.values(b.ids)]
    const before = await rowsNaming(t, theirs)
    expect(await leaks(t, a, b)).toEqual([])
    expect(await rowsNaming(t, theirs)).toEqual(before)
  })

  test('the same requests from the owner of the ids reach the route, so those 404s are the tenant check', async () => {
    expect(await unreached(t, await tenant(t))).toEqual([])
  })

  test("a key bound to one base gets 404 for another base's objects on every route, is refused workspace-wide, and never sees it", async () => {
    const theirs = [...Object.values(sibling)]
    const before = await rowsNaming(t, theirs)
    expect(await boundLeaks(t, a, sibling)).toEqual([])
    expect(await rowsNaming(t, theirs)).toEqual(before)
  })

  test('the same requests from a key bound to the base of the ids reach the route, so those 404s are the binding', async () => {
    expect(await unreached(t, await tenant(t), true)).toEqual([])
  })
})

describe('the walk itself', () => {
  test('a route added without protection is caught', async () => {
    const added: RouteDef[] = [
      defineRoute({
        method: 'GET',
        path: '/walk/open',
        auth: 'none',
        summary: 'Forgot its credential',
        tags: ['test'],
        handler: () => ({ ok: true }),
      }),
      defineRoute({
        method: 'POST',
        path: '/corpora/:corpus_id/walk-leak',
        auth: 'bearer',
        summary: 'Forgot its scope and looks a base up by id alone',
        tags: ['test'],
        params: Type.Object({ corpus_id: Type.String() }),
        handler: async ({ params }) =>
          (await leaky.sql.get('SELECT name FROM corpora WHERE id = ?', params.corpus_id)) ?? null,
      }),
      defineRoute({
        method: 'GET',
        path: '/walk-widgets/:widget_id',
        mount: 'v1',
        auth: 'bearer',
        summary: 'Names an id the walk has no object for yet',
        tags: ['test'],
        handler: () => null,
      }),
      defineRoute({
        method: 'GET',
        path: '/walk-bases',
        auth: 'bearer',
        boundKeys: 'served',
        summary: 'Says it serves bound keys, but lists every base of the workspace',
        tags: ['test'],
        handler: ({ principal }) =>
          leaky.sql.all('SELECT id FROM corpora WHERE workspace_id = ?', principal.workspaceId),
      }),
      defineRoute({
        method: 'GET',
        path: '/walk-jobs/:job_id',
        auth: 'bearer',
        boundKeys: 'served',
        summary: "Finds a job in the caller's workspace, whatever its base",
        tags: ['test'],
        params: Type.Object({ job_id: Type.String() }),
        handler: async ({ principal, params }) => {
          const job = await leaky.sql.get(
            'SELECT id FROM jobs WHERE id = ? AND workspace_id = ?',
            params.job_id,
            principal.workspaceId,
          )
          if (!job) throw notFound('Job')
          return job
        },
      }),
    ]
    const leaky: TestApp = authApp({ extraRoutes: added, env: { ENGRAM_SOURCES_ALLOW_LOOPBACK: 'true' } })
    try {
      const [la, lb] = [await tenant(leaky), await tenant(leaky)]
      expect(await unprotected(leaky)).toEqual([
        'GET /v1/walk/open is public but not on the list of public routes',
        'GET /walk/open is public but not on the list of public routes',
      ])
      expect(unscopedWrites(leaky.routes)).toEqual(['POST /corpora/:corpus_id/walk-leak'])
      // Found on both mounts, with the other workspace's session and with its key.
      const leak = (mount: string) =>
        `POST ${mount}/corpora/:corpus_id/walk-leak (${mount}/corpora/${lb.ids.corpus_id}/walk-leak): 200`
      expect(await leaks(leaky, la, lb)).toEqual([
        leak('/v1'),
        leak('/v1'),
        leak(''),
        leak(''),
        'GET /v1/walk-widgets/:widget_id: the walk makes no :widget_id (add one to tenant())',
      ])
      // A key bound to base A: the listing shows base B, and B's job is found.
      const lsib = await baseObjects(leaky, la.token, la.ids.connection_id!)
      const jobs = (mount: string) =>
        `GET ${mount}/walk-jobs/:job_id (${mount}/walk-jobs/${lsib.job_id}): 200`
      const bases = (mount: string) =>
        `GET ${mount}/walk-bases (${mount}/walk-bases) shows base B's ${lsib.corpus_id}`
      expect((await boundLeaks(leaky, la, lsib)).sort()).toEqual(
        [bases('/v1'), bases(''), jobs('/v1'), jobs('/v1'), jobs(''), jobs('')].sort(),
      )
    } finally {
      leaky.close()
    }
    // It builds an app of its own: on PostgreSQL that is a database of its own too (a few seconds).
  }, 30_000)
})
