import { afterEach, describe, expect, test } from 'bun:test'
import { allowlistCommand } from '../../src/cli/allowlist'
import type { CliIo } from '../../src/cli/io'
import type { TestApp } from '../helpers/app'
import {
  addMember,
  authApp,
  bearer,
  expectError,
  form,
  insertionOrder,
  issues,
  mintKey,
  rows,
  signUp,
} from './accounts.fixture'
import { createBase } from './ingest.fixture'

// Issue 36, the IP allowlist: requests with a workspace's sessions and API keys are refused from
// addresses its admins did not list, the client address being the socket peer or what a trusted
// proxy reports (never what a client writes into X-Forwarded-For itself).

const PATH = '/v1/enterprise/ip-allowlist'
const OFFICE = '203.0.113.0/24'
const apps: TestApp[] = []
const app = (env: Record<string, string> = {}) => {
  const t = authApp({ env })
  apps.push(t)
  return t
}
// Each test's apps are closed after it: on PostgreSQL each holds connections of its own.
afterEach(() => {
  for (const t of apps.splice(0)) t.close()
})

/** Where a request comes from: the socket peer, and what a proxy wrote into X-Forwarded-For. */
interface From {
  peer?: string
  xff?: string
}

/** A request with a credential from somewhere. */
const send = (
  t: TestApp,
  path: string,
  token: string,
  from: From = {},
  init: RequestInit & { json?: unknown } = {},
) =>
  t.request(path, {
    ...init,
    peer: from.peer,
    headers: { ...bearer(token), ...(from.xff === undefined ? {} : { 'x-forwarded-for': from.xff }) },
  })

const put = (t: TestApp, token: string, json: unknown, from: From = {}) =>
  send(t, PATH, token, from, { method: 'PUT', json })

interface Allowlist {
  enabled: boolean
  cidrs: string[]
  your_address: string
  your_address_listed: boolean
  updated_at: string | null
}

/** The allowlist as its admin reads it from `from`. */
const read = async (t: TestApp, token: string, from: From = {}) => {
  const res = await send(t, PATH, token, from)
  expect(res.status).toBe(200)
  return (await res.json()) as Allowlist
}

/** Saves a list from `from` and expects it taken. */
const save = async (t: TestApp, token: string, cidrs: string[], from: From, extra: object = {}) => {
  const res = await put(t, token, { enabled: true, cidrs, ...extra }, from)
  expect(res.status).toBe(200)
  return (await res.json()) as Allowlist
}

/** Asserts the whole 403 body of a refused request. */
const refused = async (res: Response, address: string, path = '/v1') => {
  if (!path.startsWith('/v1')) {
    expect(res.status).toBe(403)
    expect(await res.json()).toEqual({
      detail: "The workspace's IP allowlist does not include the address this request came from.",
    })
    return
  }
  expect(res.status).toBe(403)
  expect(await res.json()).toEqual({
    error: {
      code: 'ip_not_allowed',
      message: "The workspace's IP allowlist does not include the address this request came from.",
      status: 403,
      details: { address },
      request_id: res.headers.get('x-request-id'),
    },
  })
}

/** The domain events of a type in a workspace, oldest first. */
const events = async (t: TestApp, type: string) =>
  (
    await t.sql.all<{ workspace_id: string; payload: string }>(
      'SELECT workspace_id, payload FROM domain_events WHERE type = ? ORDER BY seq',
      type,
    )
  ).map((r) => ({ workspaceId: r.workspace_id, ...(JSON.parse(r.payload) as { details?: object }) }))

describe('GET and PUT /v1/enterprise/ip-allowlist', () => {
  test('a workspace starts with no list; the answer tells the caller its address as the server sees it', async () => {
    const t = app()
    const a = await signUp(t)
    expect(await read(t, a.token)).toEqual({
      enabled: false,
      cidrs: [],
      your_address: '127.0.0.1',
      your_address_listed: false,
      updated_at: null,
    })
    expect((await read(t, a.token, { peer: '::1' })).your_address).toBe('::1')
    // A dual-stack socket reports an IPv4 client as IPv4-mapped IPv6: shown (and matched) as IPv4.
    expect((await read(t, a.token, { peer: '::ffff:203.0.113.5' })).your_address).toBe('203.0.113.5')
  })

  test('entries are saved normalized: host bits cleared, IPv6 compressed, IPv4-mapped unwrapped, duplicates dropped', async () => {
    const t = app()
    const a = await signUp(t)
    const cidrs = [
      ' 10.1.2.3/8 ',
      '2001:DB8:0:0::1',
      '::ffff:192.0.2.0/120',
      '::ffff:198.51.100.7',
      '203.0.113.7/32',
      '10.0.0.0/8',
      '2001:db8:0:0:1::/64',
      '127.0.0.1',
    ]
    const saved = await save(t, a.token, cidrs, { peer: '127.0.0.1' })
    expect(saved).toEqual({
      enabled: true,
      cidrs: [
        '10.0.0.0/8',
        '2001:db8::1',
        '192.0.2.0/24',
        '198.51.100.7',
        '203.0.113.7',
        '2001:db8::/64',
        '127.0.0.1',
      ],
      your_address: '127.0.0.1',
      your_address_listed: true,
      updated_at: '2026-03-01T12:00:00.000Z',
    })
    expect(await read(t, a.token)).toEqual(saved)
  })

  test('each bad entry is a 422 naming it, and nothing is saved', async () => {
    const t = app()
    const a = await signUp(t)
    const bad = [
      '10.0.0.300',
      // ipaddr.js alone would read these as 8.0.0.1 and 10.0.0.1.
      '010.0.0.1',
      '10.1',
      '10.0.0.0/33',
      '2001:db8::/129',
      'fe80::1%eth0',
      'example.com',
      '10.0.0.0/',
      '10.0.0.0/+8',
      '/8',
    ]
    const res = await put(t, a.token, { enabled: true, cidrs: ['127.0.0.1', ...bad] })
    const found = await issues(res, PATH)
    expect(found).toEqual(
      bad.map((entry, i) => ({
        loc: ['body', 'cidrs', i + 1],
        msg: `${JSON.stringify(entry)} is not an IPv4 or IPv6 address or CIDR range (such as 203.0.113.7, 10.0.0.0/8 or 2001:db8::/32)`,
        type: 'value_error',
      })),
    )
    expect(await rows(t, 'ip_allowlists')).toBe(0)
    expect(await events(t, 'ip_allowlist.updated')).toEqual([])
  })

  test('an enabled empty list, too many entries and a malformed body are refused with nothing saved', async () => {
    const t = app()
    const a = await signUp(t)
    const empty = await put(t, a.token, { enabled: true, cidrs: [] })
    expect(await issues(empty, PATH)).toEqual([
      {
        loc: ['body', 'cidrs'],
        msg: 'An enabled allowlist needs at least one entry: with none, every request would be refused',
        type: 'value_error',
      },
    ])
    const many = Array.from({ length: 501 }, (_, i) => `10.0.${i >> 8}.${i & 255}`)
    expect((await put(t, a.token, { enabled: true, cidrs: many })).status).toBe(422)
    for (const body of [
      { enabled: true },
      { cidrs: ['127.0.0.1'] },
      { enabled: 'yes', cidrs: [] },
      { enabled: true, cidrs: [7] },
    ]) {
      await expectError(await put(t, a.token, body), PATH, 422, 'validation_error')
    }
    expect(await rows(t, 'ip_allowlists')).toBe(0)
    // A disabled list may be empty (that is how an admin clears it) or hold entries kept for later.
    expect((await put(t, a.token, { enabled: false, cidrs: [] })).status).toBe(200)
    expect((await put(t, a.token, { enabled: false, cidrs: many.slice(0, 500) })).status).toBe(200)
  })

  test('only admins: a member session and a key without the admin scope are refused; an admin key may', async () => {
    const t = app()
    const a = await signUp(t)
    const member = await addMember(t, a.token)
    for (const init of [{}, { method: 'PUT', json: { enabled: false, cidrs: [] } }]) {
      await expectError(await send(t, PATH, member.token, {}, init), PATH, 403, 'admin_required')
    }
    const query = await mintKey(t, a.token, ['query', 'ingest'])
    await expectError(await send(t, PATH, query.key, {}), PATH, 403, 'missing_scope')
    const admin = await mintKey(t, a.token, ['admin'])
    expect((await save(t, admin.key, ['127.0.0.1'], {})).cidrs).toEqual(['127.0.0.1'])
    expect(await rows(t, 'ip_allowlists')).toBe(1)
  })
})

describe('enforcement without a proxy: the socket peer is the client', () => {
  test('IPv4: sessions and keys from a listed address are served, from any other refused on both mounts', async () => {
    const t = app()
    const a = await signUp(t)
    const key = await mintKey(t, a.token, ['query', 'ingest'])
    await save(t, a.token, [OFFICE], { peer: '203.0.113.5' })
    for (const token of [a.token, key.key]) {
      expect((await send(t, '/v1/auth/me', token, { peer: '203.0.113.77' })).status).toBe(200)
      await refused(await send(t, '/v1/auth/me', token, { peer: '198.51.100.7' }), '198.51.100.7')
      await refused(await send(t, '/corpora', token, { peer: '198.51.100.7' }), '198.51.100.7', '/corpora')
      // In process there is no socket: the request comes from this machine, which is not listed.
      await refused(await send(t, '/v1/corpora', token), '127.0.0.1')
    }
  })

  test('IPv6: ranges and single addresses, an IPv4-mapped peer matched as IPv4', async () => {
    const t = app()
    const a = await signUp(t)
    await save(t, a.token, ['2001:db8:1::/48', '127.0.0.1', '::ffff:198.51.100.0/120'], {
      peer: '::ffff:127.0.0.1',
    })
    const me = (peer: string) => send(t, '/v1/auth/me', a.token, { peer })
    expect((await me('2001:db8:1:ffff::5')).status).toBe(200)
    expect((await me('2001:DB8:1::9')).status).toBe(200)
    await refused(await me('2001:db8:2::5'), '2001:db8:2::5')
    // ::1 is not 127.0.0.1: loopback over IPv6 must be listed itself.
    await refused(await me('::1'), '::1')
    expect((await me('::ffff:127.0.0.1')).status).toBe(200)
    expect((await me('198.51.100.9')).status).toBe(200)
    expect((await me('::ffff:198.51.100.200')).status).toBe(200)
    await refused(await me('::ffff:198.51.101.1'), '198.51.101.1')
  })

  test('a spoofed X-Forwarded-For from a peer nobody trusts is ignored', async () => {
    for (const env of [{}, { ENGRAM_TRUSTED_PROXIES: '10.0.0.0/8' }] as Record<string, string>[]) {
      const t = app(env)
      const a = await signUp(t)
      await save(t, a.token, [OFFICE], { peer: '203.0.113.5' })
      const res = await send(t, '/v1/auth/me', a.token, { peer: '198.51.100.7', xff: '203.0.113.9' })
      await refused(res, '198.51.100.7')
      // ...and the admin reading the list sees the peer, not what it claimed.
      const seen = await send(t, PATH, a.token, { peer: '203.0.113.5', xff: '198.51.100.1' })
      expect(((await seen.json()) as Allowlist).your_address).toBe('203.0.113.5')
    }
  })
})

describe('enforcement behind a trusted proxy', () => {
  test('the address the proxy reports is the one checked, IPv4 and IPv6', async () => {
    const t = app({ ENGRAM_TRUSTED_PROXIES: 'loopback' })
    const a = await signUp(t)
    const key = await mintKey(t, a.token, ['query'])
    expect((await read(t, a.token, { peer: '127.0.0.1', xff: '203.0.113.9' })).your_address).toBe(
      '203.0.113.9',
    )
    await save(t, a.token, [OFFICE, '2001:db8::/32'], { peer: '127.0.0.1', xff: '203.0.113.9' })
    for (const token of [a.token, key.key]) {
      expect((await send(t, '/v1/auth/me', token, { peer: '127.0.0.1', xff: '203.0.113.10' })).status).toBe(
        200,
      )
      expect((await send(t, '/v1/auth/me', token, { peer: '::1', xff: '2001:db8::77' })).status).toBe(200)
      await refused(
        await send(t, '/v1/auth/me', token, { peer: '127.0.0.1', xff: '198.51.100.1' }),
        '198.51.100.1',
      )
      await refused(await send(t, '/v1/auth/me', token, { peer: '::1', xff: '2001:db9::1' }), '2001:db9::1')
    }
  })

  test('a client prepending a listed address to X-Forwarded-For is still refused', async () => {
    for (const env of [{ ENGRAM_TRUSTED_PROXIES: 'loopback' }, { ENGRAM_TRUST_PROXY: 'true' }] as Record<
      string,
      string
    >[]) {
      const t = app(env)
      const a = await signUp(t)
      await save(t, a.token, [OFFICE], { peer: '127.0.0.1', xff: '203.0.113.9' })
      // The client wrote 203.0.113.9; nginx appended the address it really came from.
      const res = await send(t, '/v1/auth/me', a.token, {
        peer: '127.0.0.1',
        xff: '203.0.113.9, 198.51.100.1',
      })
      await refused(res, '198.51.100.1')
    }
  })

  test('without the proxy trusted, every request seems to come from the proxy itself', async () => {
    const t = app()
    const a = await signUp(t)
    // The admin's own address is the proxy's: a list of the office alone would lock everyone out.
    const res = await put(
      t,
      a.token,
      { enabled: true, cidrs: [OFFICE] },
      { peer: '127.0.0.1', xff: '203.0.113.9' },
    )
    await expectError(res, PATH, 409, 'would_lock_out')
    expect(await rows(t, 'ip_allowlists')).toBe(0)
  })
})

describe('lock-out', () => {
  test("a list without the caller's own address is refused 409 until confirmed; then the caller is shut out", async () => {
    const t = app()
    const a = await signUp(t)
    const from = { peer: '198.51.100.1' }
    const res = await put(t, a.token, { enabled: true, cidrs: [OFFICE] }, from)
    expect(res.status).toBe(409)
    expect(await res.json()).toEqual({
      error: {
        code: 'would_lock_out',
        message:
          'The allowlist does not include your own address: saving it would shut you out. Add your address, or send confirm_lockout: true.',
        status: 409,
        details: { address: '198.51.100.1' },
        request_id: res.headers.get('x-request-id'),
      },
    })
    expect(await rows(t, 'ip_allowlists')).toBe(0)
    expect(await events(t, 'ip_allowlist.updated')).toEqual([])
    expect((await read(t, a.token, from)).enabled).toBe(false)
    // `confirm_lockout: false` is no confirmation; a disabled list is not checked against the caller.
    expect(
      (await put(t, a.token, { enabled: true, cidrs: [OFFICE], confirm_lockout: false }, from)).status,
    ).toBe(409)
    expect((await put(t, a.token, { enabled: false, cidrs: [OFFICE] }, from)).status).toBe(200)
    const saved = await save(t, a.token, [OFFICE], from, { confirm_lockout: true })
    expect(saved).toMatchObject({ enabled: true, cidrs: [OFFICE], your_address_listed: false })
    await refused(await send(t, PATH, a.token, from), '198.51.100.1')
    // From the office the same session turns it off again, and the caller is let back in at once.
    expect((await put(t, a.token, { enabled: false, cidrs: [OFFICE] }, { peer: '203.0.113.1' })).status).toBe(
      200,
    )
    expect((await send(t, PATH, a.token, from)).status).toBe(200)
    const changes = (await events(t, 'ip_allowlist.updated')).map((e) => e.details)
    expect(changes).toEqual([
      {
        enabled: false,
        was_enabled: false,
        cidrs: [OFFICE],
        added: [OFFICE],
        removed: [],
        confirmed_lockout: false,
      },
      { enabled: true, was_enabled: false, cidrs: [OFFICE], added: [], removed: [], confirmed_lockout: true },
      {
        enabled: false,
        was_enabled: true,
        cidrs: [OFFICE],
        added: [],
        removed: [],
        confirmed_lockout: false,
      },
    ])
  })
})

describe('what the check covers', () => {
  test('MCP routes, the hosted MCP server and answer streams are refused before they run', async () => {
    const t = app()
    const a = await signUp(t)
    const key = await mintKey(t, a.token, ['query', 'ingest'])
    const corpusId = await createBase(t, a.token)
    await save(t, a.token, [OFFICE], { peer: '203.0.113.5' })
    const out = { peer: '198.51.100.7' }
    await refused(await send(t, `/v1/mcp/${corpusId}/documents`, key.key, out), '198.51.100.7')
    const rpc = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }
    const hosted = await send(t, '/mcp-http/', key.key, out, {
      method: 'POST',
      body: JSON.stringify(rpc),
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    })
    await refused(hosted, '198.51.100.7', '/mcp-http/')
    const stream = await send(t, `/v1/corpora/${corpusId}/chat/stream`, a.token, out, {
      method: 'POST',
      json: { question: 'What is in the base?' },
    })
    await refused(stream, '198.51.100.7')
    // From the office the same requests get past the check (whatever the route then answers).
    const inside = await send(t, `/v1/mcp/${corpusId}/documents`, key.key, { peer: '203.0.113.5' })
    expect(inside.status).toBe(200)
  })

  test('a refused request writes nothing', async () => {
    const t = app()
    const a = await signUp(t)
    await save(t, a.token, [OFFICE], { peer: '203.0.113.5' })
    const out = { peer: '198.51.100.7' }
    const before = {
      keys: await rows(t, 'api_keys'),
      corpora: await rows(t, 'corpora'),
      lists: await rows(t, 'ip_allowlists'),
    }
    const tries: [string, RequestInit & { json?: unknown }][] = [
      ['/v1/api-keys', { method: 'POST', json: { name: 'k', scopes: ['query'] } }],
      ['/v1/corpora', { method: 'POST', json: { name: 'Base' } }],
      [PATH, { method: 'PUT', json: { enabled: false, cidrs: [] } }],
    ]
    for (const [path, init] of tries) await refused(await send(t, path, a.token, out, init), '198.51.100.7')
    // The log line of each refusal names the workspace, for the operator following one up.
    const lines = t.log.lines.filter((l) => l.msg === 'request' && l.status === 403)
    expect(lines.map((l) => l.workspace_id)).toEqual(tries.map(() => a.workspaceId))
    expect({
      keys: await rows(t, 'api_keys'),
      corpora: await rows(t, 'corpora'),
      lists: await rows(t, 'ip_allowlists'),
    }).toEqual(before)
    expect((await read(t, a.token, { peer: '203.0.113.5' })).enabled).toBe(true)
  })

  test('signing in is not blocked, but the session it gives is refused like any other', async () => {
    const t = app()
    const a = await signUp(t)
    await save(t, a.token, [OFFICE], { peer: '203.0.113.5' })
    const login = await t.request('/v1/auth/login', {
      ...form({ username: a.email, password: a.password }),
      peer: '198.51.100.7',
    })
    expect(login.status).toBe(200)
    const token = ((await login.json()) as { access_token: string }).access_token
    const out = { peer: '198.51.100.7' }
    await refused(await send(t, '/v1/auth/me', token, out), '198.51.100.7')
    await refused(await send(t, '/v1/auth/refresh', token, out, { method: 'POST' }), '198.51.100.7')
    expect((await send(t, '/v1/auth/me', token, { peer: '203.0.113.8' })).status).toBe(200)
  })

  test("one workspace's list leaves other workspaces alone", async () => {
    const t = app()
    const a = await signUp(t)
    const b = await signUp(t)
    await save(t, a.token, [OFFICE], { peer: '203.0.113.5' })
    expect((await send(t, '/v1/auth/me', b.token, { peer: '198.51.100.7' })).status).toBe(200)
    expect(await read(t, b.token, { peer: '198.51.100.7' })).toMatchObject({ enabled: false, cidrs: [] })
    await refused(await send(t, '/v1/auth/me', a.token, { peer: '198.51.100.7' }), '198.51.100.7')
  })
})

describe('the cached list', () => {
  test('a list saved by another process is enforced on the next request', async () => {
    const t = app()
    const a = await signUp(t)
    const me = (peer: string) => send(t, '/v1/auth/me', a.token, { peer })
    // Read once: the workspace's "no list" is now in the check's memo.
    expect((await me('198.51.100.7')).status).toBe(200)
    await t.sql.runElsewhere(
      'INSERT INTO ip_allowlists (workspace_id, enabled, cidrs, updated_at) VALUES (?, TRUE, ?, 0)',
      a.workspaceId,
      JSON.stringify([OFFICE]),
    )
    await refused(await me('198.51.100.7'), '198.51.100.7')
    expect((await me('203.0.113.7')).status).toBe(200)
    await t.sql.runElsewhere('UPDATE ip_allowlists SET enabled = FALSE')
    expect((await me('198.51.100.7')).status).toBe(200)
  })
})

describe("the operator's break-glass: engram allowlist", () => {
  /** Runs the command against the test app's data dir; answers its exit code and what it printed. */
  const cli = async (t: TestApp, args: string[]) => {
    const out: string[] = []
    const err: string[] = []
    const io: CliIo = { out: (l) => out.push(l), err: (l) => err.push(l), tty: false, sleep: async () => {} }
    // On PostgreSQL the command opens the app's database, as an operator's ENGRAM_DATABASE_URL would.
    const pg = t.databaseUrl ? { ENGRAM_DATABASE_URL: t.databaseUrl, ENGRAM_SECRET: t.deps.secret } : {}
    const env = { ENGRAM_DATA_DIR: t.dataDir, ENGRAM_LOG_LEVEL: 'error', ...pg }
    const code = await allowlistCommand(args, env, io)
    return { code, out, err }
  }

  test('--off switches off a list that shuts every admin out, keeping its entries, and is told as the system', async () => {
    const t = app()
    const a = await signUp(t)
    await save(t, a.token, [OFFICE], { peer: '198.51.100.1' }, { confirm_lockout: true })
    await refused(await send(t, PATH, a.token, { peer: '198.51.100.1' }), '198.51.100.1')
    expect(await cli(t, [a.workspaceId])).toEqual({
      code: 0,
      out: [`${a.workspaceId}: IP allowlist on; entries: ${OFFICE}`],
      err: [],
    })
    expect(await cli(t, [a.workspaceId, '--off'])).toEqual({
      code: 0,
      out: [`${a.workspaceId}: IP allowlist switched off (was on); entries kept: ${OFFICE}`],
      err: [],
    })
    // The app enforces the change on its next request.
    expect(await read(t, a.token, { peer: '198.51.100.1' })).toMatchObject({
      enabled: false,
      cidrs: [OFFICE],
    })
    const told = (await events(t, 'ip_allowlist.updated')).at(-1) as Record<string, unknown>
    expect(told).toMatchObject({
      workspaceId: a.workspaceId,
      actor: { type: 'system', id: null },
      details: { enabled: false, was_enabled: true, cidrs: [OFFICE], via: 'engram allowlist --off' },
    })
  })

  test('a workspace without a list, and a command without a workspace, are errors that change nothing', async () => {
    const t = app()
    const a = await signUp(t)
    expect(await cli(t, [a.workspaceId, '--off'])).toEqual({
      code: 1,
      out: [],
      err: [`engram allowlist: workspace ${a.workspaceId} has no IP allowlist (or does not exist).`],
    })
    const bare = await cli(t, [])
    expect(bare.code).toBe(2)
    expect(bare.err[0]).toStartWith('engram allowlist: Name the workspace (ws_...).')
    expect((await cli(t, [a.workspaceId, '--of'])).code).toBe(2)
    expect(await rows(t, 'ip_allowlists')).toBe(0)
    expect(await events(t, 'ip_allowlist.updated')).toEqual([])
  })
})

describe('the audit trail', () => {
  test('a refusal is recorded once a minute per address, with the refusals it left unrecorded', async () => {
    const t = app()
    const a = await signUp(t)
    const key = await mintKey(t, a.token, ['query'])
    await save(t, a.token, [OFFICE], { peer: '203.0.113.5' })
    for (let i = 0; i < 3; i++)
      await refused(await send(t, '/v1/corpora', key.key, { peer: '198.51.100.7' }), '198.51.100.7')
    await refused(await send(t, '/v1/auth/me', a.token, { peer: '2001:db8::1' }), '2001:db8::1')
    // Another address of the same IPv6 /64 counts as the same client.
    await refused(await send(t, '/v1/auth/me', a.token, { peer: '2001:db8::2' }), '2001:db8::2')
    t.clock.advance(60_000)
    await refused(await send(t, '/v1/corpora', key.key, { peer: '198.51.100.7' }), '198.51.100.7')
    const recorded = await events(t, 'ip_allowlist.refused')
    expect(recorded).toMatchObject([
      {
        workspaceId: a.workspaceId,
        actor: { type: 'api_key', id: key.id, ip: '198.51.100.7' },
        details: { address: '198.51.100.7', route: 'GET /v1/corpora', unrecorded_before: 0 },
      },
      {
        actor: { type: 'user', id: a.userId, ip: '2001:db8::1' },
        details: { address: '2001:db8::1', route: 'GET /v1/auth/me', unrecorded_before: 0 },
      },
      { details: { address: '198.51.100.7', unrecorded_before: 2 } },
    ])
  })

  test('a save and a refusal are audit rows, with who, from where and what', async () => {
    const t = app()
    const a = await signUp(t)
    const key = await mintKey(t, a.token, ['admin'])
    await save(t, key.key, [OFFICE, '2001:db8::/32'], { peer: '203.0.113.5' })
    await refused(await send(t, '/v1/auth/me', a.token, { peer: '198.51.100.7' }), '198.51.100.7')
    const audit: unknown[] = (
      await t.sql.all<Record<string, string | null>>(
        `SELECT workspace_id, actor_type, actor_id, action, target_type, target_id, details, ip
         FROM audit_events WHERE action LIKE 'ip_allowlist.%' ORDER BY ${insertionOrder(t)}`,
      )
    ).map((r) => ({ ...r, details: JSON.parse(r.details ?? '{}') }))
    expect(audit).toEqual([
      {
        workspace_id: a.workspaceId,
        actor_type: 'api_key',
        actor_id: key.id,
        action: 'ip_allowlist.updated',
        target_type: 'workspace',
        target_id: a.workspaceId,
        details: {
          enabled: true,
          was_enabled: false,
          cidrs: [OFFICE, '2001:db8::/32'],
          added: [OFFICE, '2001:db8::/32'],
          removed: [],
          confirmed_lockout: false,
        },
        ip: '203.0.113.5',
      },
      {
        workspace_id: a.workspaceId,
        actor_type: 'user',
        actor_id: a.userId,
        action: 'ip_allowlist.refused',
        target_type: null,
        target_id: null,
        details: { address: '198.51.100.7', route: 'GET /v1/auth/me', unrecorded_before: 0 },
        ip: '198.51.100.7',
      },
    ])
  })

  test('a workspace gets at most 60 refusal rows a minute, however many addresses', async () => {
    const t = app()
    const a = await signUp(t)
    await save(t, a.token, [OFFICE], { peer: '203.0.113.5' })
    for (let i = 0; i < 70; i++) {
      expect((await send(t, '/v1/auth/me', a.token, { peer: `198.51.100.${i}` })).status).toBe(403)
    }
    expect((await events(t, 'ip_allowlist.refused')).length).toBe(60)
  })
})
