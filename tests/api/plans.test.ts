import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { CliIo } from '../../src/cli/io'
import { planCommand } from '../../src/cli/plan'
import { DEFAULT_PLANS } from '../../src/features/plans/plans.defaults'
import { MAX_PLANS_FILE_BYTES } from '../../src/features/plans/plans.load'
import type { TestApp } from '../helpers/app'
import {
  addMember,
  auditRows,
  authApp,
  bearer,
  expectError,
  mintKey,
  mounts,
  rows,
  signUp,
} from './accounts.fixture'
import { createBase } from './ingest.fixture'

// Issue 37, the plans part: the plans in force (built-in or the operator's file), GET /plans on
// both mounts without a credential, `engram plan set`, and /admin/billing on the workspace's plan.

const GB = 1024 ** 3
const dir = mkdtempSync(join(tmpdir(), 'engram-plans-'))
const apps: TestApp[] = []
const app = (env: Record<string, string> = {}) => {
  const t = authApp({ env })
  apps.push(t)
  return t
}
afterAll(() => {
  for (const t of apps) t.close()
})

let files = 0
/** Writes a plans file and answers its path. */
const plansFile = (content: unknown): string => {
  const path = join(dir, `plans-${++files}.json`)
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content))
  return path
}

const unlimited = {
  bases: null,
  documents: null,
  storage_bytes: null,
  queries_per_month: null,
  seats: null,
  api_keys: null,
}
const starter = {
  id: 'starter',
  name: 'Starter',
  prices: { currency: 'eur', month: 9, year: 90 },
  caps: { bases: 2, documents: 50, storage_bytes: GB, queries_per_month: 500, seats: 3, api_keys: 1 },
  public: true,
}
const custom = {
  id: 'custom',
  name: 'Custom',
  prices: { currency: 'eur', month: 0, year: 0 },
  caps: unlimited,
  public: false,
}

describe('GET /plans', () => {
  test('answers the built-in plans on both mounts without a credential', async () => {
    const t = app()
    for (const path of mounts('/plans')) {
      const res = await t.request(path)
      expect(res.status).toBe(200)
      const body = (await res.json()) as { plans: { id: string; public: boolean; caps: object }[] }
      expect(body).toEqual({ plans: DEFAULT_PLANS })
      expect(body.plans.map((p) => [p.id, p.public])).toEqual([
        ['free', true],
        ['beta', false],
        ['team', true],
        ['business', true],
        ['enterprise', false],
      ])
      expect(body.plans[1]?.caps).toEqual(unlimited)
    }
  })

  test('an operator file replaces the built-in plans; a plan without a rate card is not metered', async () => {
    const file = plansFile({ plans: [starter, { ...custom, public: false }] })
    const t = app({ ENGRAM_PLANS_FILE: file, ENGRAM_DEFAULT_PLAN: 'starter' })
    const body = await (await t.request('/v1/plans')).json()
    const unmetered = { queries_per_1000: null, storage_gb_month: null }
    expect(body).toEqual({
      plans: [
        { ...starter, rate_card: unmetered },
        { ...custom, public: false, rate_card: unmetered },
      ],
    })
  })
})

describe('the plans file is checked at start-up', () => {
  const refused = (content: unknown, env: Record<string, string> = {}) => {
    const file = plansFile(content)
    expect(() => app({ ENGRAM_PLANS_FILE: file, ENGRAM_DEFAULT_PLAN: 'starter', ...env })).toThrow()
    try {
      app({ ENGRAM_PLANS_FILE: file, ENGRAM_DEFAULT_PLAN: 'starter', ...env })
    } catch (e) {
      return (e as Error).message.replace(file, 'FILE')
    }
    return ''
  }

  test('an unknown cap is named with the known ones', () => {
    expect(refused({ plans: [{ ...starter, caps: { ...starter.caps, widgets: 3 } }] })).toBe(
      'plans file FILE:\n  - plans[0].caps: unknown cap "widgets" (known: bases, documents, storage_bytes, queries_per_month, seats, api_keys)',
    )
  })

  test('a negative cap or price, a missing cap and a fractional cap are each named', () => {
    const bad = {
      ...starter,
      prices: { currency: 'eur', month: -1, year: 90 },
      caps: { bases: -2, documents: 1.5, storage_bytes: GB, queries_per_month: 500, seats: 3 },
    }
    expect(refused({ plans: [bad] })).toBe(
      [
        'plans file FILE:',
        '  - plans[0].prices.month: must not be negative (-1)',
        '  - plans[0].caps.bases: must not be negative (-2)',
        '  - plans[0].caps.documents: must be a whole number (1.5)',
        '  - plans[0].caps.api_keys: must be a number or null (unlimited)',
      ].join('\n'),
    )
  })

  test('duplicate ids are refused', () => {
    expect(refused({ plans: [starter, { ...starter, name: 'Again' }] })).toBe(
      'plans file FILE:\n  - plans: duplicate id "starter"',
    )
  })

  test('a default plan the file does not define is refused', () => {
    expect(refused({ plans: [custom] })).toBe(
      'plans file FILE:\n  - the default plan "starter" (ENGRAM_DEFAULT_PLAN) is not defined in the file',
    )
  })

  test('not JSON, the wrong shape, too large, or missing: each a clear refusal', () => {
    expect(refused('{plans')).toStartWith('plans file FILE:\n  - not JSON: ')
    expect(refused({ starter })).toBe(
      'plans file FILE:\n  - must be a JSON object {"plans": [...]}, the shape GET /plans answers',
    )
    expect(refused(`{"plans":[]}${' '.repeat(MAX_PLANS_FILE_BYTES)}`)).toBe(
      `plans file FILE:\n  - larger than ${MAX_PLANS_FILE_BYTES} bytes`,
    )
    const missing = join(dir, 'absent.json')
    expect(() => app({ ENGRAM_PLANS_FILE: missing })).toThrow(
      `plans file ${missing}:\n  - not found or not readable (ENGRAM_PLANS_FILE)`,
    )
  })

  test('without a file, a default plan that is not built in is refused too', () => {
    expect(() => app({ ENGRAM_DEFAULT_PLAN: 'starter' })).toThrow(
      'the default plan "starter" (ENGRAM_DEFAULT_PLAN) is not one of them',
    )
  })
})

/** Runs `engram plan` against the app's data dir; answers its exit code and what it printed. */
const cli = async (t: TestApp, args: string[], env: Record<string, string> = {}) => {
  const out: string[] = []
  const err: string[] = []
  const io: CliIo = { out: (l) => out.push(l), err: (l) => err.push(l), tty: false, sleep: async () => {} }
  // The app's own database: its data dir, and its PostgreSQL one when its features run there.
  const database = t.databaseUrl ? { ENGRAM_DATABASE_URL: t.databaseUrl, ENGRAM_SECRET: t.deps.secret } : {}
  const code = await planCommand(
    args,
    { ENGRAM_DATA_DIR: t.dataDir, ENGRAM_LOG_LEVEL: 'error', ...database, ...env },
    io,
  )
  return { code, out, err }
}

const plan = async (t: TestApp, ws: string) =>
  (await t.sql.get<{ plan: string }>('SELECT plan FROM workspaces WHERE id = ?', ws))?.plan

describe('engram plan set', () => {
  test('moves a workspace to another plan, recorded in the audit log as the system', async () => {
    const t = app()
    const a = await signUp(t)
    expect(await plan(t, a.workspaceId)).toBe('beta')
    expect(await cli(t, ['set', a.workspaceId, 'team'])).toEqual({
      code: 0,
      out: [`${a.workspaceId}: plan beta -> team`],
      err: [],
    })
    expect(await plan(t, a.workspaceId)).toBe('team')
    // The running app reads the new plan on its next request.
    const billing = await (await t.request('/v1/admin/billing', { headers: bearer(a.token) })).json()
    expect(billing).toMatchObject({ plan: 'team', limits: { seats: 10 } })
    // The outbox row the command wrote (at the machine's time, the command's clock) reaches the
    // audit log through the app's dispatcher once the app's clock is past it.
    t.clock.set(new Date(Date.now() + 60_000))
    await t.events.dispatcher.drain()
    expect(await auditRows(t, 'plan.changed')).toEqual([
      {
        workspace_id: a.workspaceId,
        actor_type: 'system',
        actor_id: null as unknown as string,
        target_id: a.workspaceId,
        details: '{"from":"beta","to":"team","via":"engram plan set"}',
      },
    ])
  })

  test('refuses an unknown plan or workspace, writing nothing', async () => {
    const t = app()
    const a = await signUp(t)
    const events = await rows(t, 'domain_events')
    expect(await cli(t, ['set', a.workspaceId, 'platinum'])).toEqual({
      code: 1,
      out: [],
      err: [
        'engram plan: no plan "platinum"; the plans are free, beta, team, business, enterprise (engram plan list).',
      ],
    })
    expect(await cli(t, ['set', 'ws_nope', 'team'])).toEqual({
      code: 1,
      out: [],
      err: ['engram plan: no workspace ws_nope.'],
    })
    expect(await plan(t, a.workspaceId)).toBe('beta')
    expect(await rows(t, 'domain_events')).toBe(events)
    const usage = await cli(t, ['set', a.workspaceId])
    expect(usage.code).toBe(2)
    expect(usage.err[0]).toStartWith('engram plan: Say "list" or "set WORKSPACE PLAN".')
  })

  test('the plans of the operator file are the ones it knows; list shows them', async () => {
    const file = plansFile({ plans: [starter, custom] })
    const env = { ENGRAM_PLANS_FILE: file, ENGRAM_DEFAULT_PLAN: 'starter' }
    const t = app(env)
    const a = await signUp(t)
    expect((await cli(t, ['set', a.workspaceId, 'team'], env)).code).toBe(1)
    expect(await cli(t, ['set', a.workspaceId, 'custom'], env)).toMatchObject({ code: 0 })
    expect((await cli(t, ['list'], env)).out).toEqual([
      'starter\tStarter\t9/90 eur\tbases=2 documents=50 storage_bytes=1073741824 queries_per_month=500 seats=3 api_keys=1',
      'custom\tCustom\t0/0 eur\tbases=unlimited documents=unlimited storage_bytes=unlimited queries_per_month=unlimited seats=unlimited api_keys=unlimited',
    ])
  })
})

describe('GET /admin/billing on the real plan', () => {
  test("shows the workspace's plan, its caps, use against each this month and the estimated cost", async () => {
    const t = app()
    const a = await signUp(t)
    await addMember(t, a.token)
    await mintKey(t, a.token, ['query'])
    const base = await createBase(t, a.token)
    // The clock stands on 2026-03-01: February's questions are last month's and do not count.
    const add = (day: string, n: number) =>
      t.sql.run(
        'INSERT INTO usage_daily (workspace_id, corpus_id, day, queries) VALUES (?, ?, ?, ?)',
        a.workspaceId,
        base,
        day,
        n,
      )
    await add('2026-02-28', 700)
    await add('2026-03-01', 1500)
    // The cap and the report count the questions taken from the month, not these counters.
    const taken = (month: string, n: number) =>
      t.sql.run(
        'INSERT INTO plan_queries (workspace_id, month, taken) VALUES (?, ?, ?)',
        a.workspaceId,
        month,
        n,
      )
    await taken('2026-02', 700)
    await taken('2026-03', 1500)
    expect((await cli(t, ['set', a.workspaceId, 'enterprise'])).code).toBe(0)
    for (const path of mounts('/admin/billing')) {
      const body = await (await t.request(path, { headers: bearer(a.token) })).json()
      expect(body).toMatchObject({
        plan: 'enterprise',
        plan_name: 'Enterprise',
        billing_enabled: false,
        limits: unlimited,
        used: { bases: 1, documents: 0, storage_bytes: 0, queries_per_month: 1500, seats: 2, api_keys: 1 },
        usage: { queries: 2200, members: 2, api_keys: 1, bases: 1 },
        // 1000 a month and 2 per 1000 questions this month.
        estimated_cost: { amount: 1003, currency: 'usd' },
      })
    }
    expect((await cli(t, ['set', a.workspaceId, 'free'])).code).toBe(0)
    const free = await (await t.request('/v1/admin/billing', { headers: bearer(a.token) })).json()
    expect(free).toMatchObject({
      plan: 'free',
      limits: { bases: 1, documents: 100, storage_bytes: GB, queries_per_month: 1000, seats: 1, api_keys: 2 },
      used: { queries_per_month: 1500, seats: 2 },
      estimated_cost: { amount: 0, currency: 'usd' },
    })
    await expectError(await t.request('/v1/admin/billing'), '/v1/admin/billing', 401, 'unauthorized')
  })
})
