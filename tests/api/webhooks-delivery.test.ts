import { afterAll, describe, expect, setSystemTime, test } from 'bun:test'
import { Webhook } from 'standardwebhooks'
import { MAX_ATTEMPTS, RETRY_SCHEDULE_MS } from '../../src/features/webhooks/webhooks.deliveries'
import type { TestApp } from '../helpers/app'
import { train, upload } from '../helpers/ready-base'
import { auditRows, authApp, bearer, expectError, mintKey, signUp } from './accounts.fixture'
import { type Receiver, receiver } from './webhooks.fixture'

// Issue 36, "What it must show": deliveries to a real receiver on loopback that verifies every
// request with the `standardwebhooks` package. The queue is stepped by hand under the test app's
// manual clock (no sleeping for work): a retry is due when the clock says so. The only real wait
// is the sender's own timeout, set to 300 ms here.

const apps: TestApp[] = []
const receivers: Receiver[] = []
afterAll(() => {
  for (const r of receivers) r.stop()
  for (const t of apps) t.close()
})

/** An app that may post to a receiver on loopback over http, and a receiver sharing its clock. */
function setUp(env: Record<string, string> = {}) {
  const t = authApp({
    env: {
      ENGRAM_WEBHOOKS_ALLOW_HTTP: 'true',
      ENGRAM_WEBHOOKS_ALLOW_LOOPBACK: 'true',
      ENGRAM_WEBHOOKS_TIMEOUT_MS: '300',
      ...env,
    },
  })
  const r = receiver(() => t.clock.now())
  apps.push(t)
  receivers.push(r)
  return { t, r }
}

interface Hook {
  id: string
  secret: string
}

/**
 * Signs up and subscribes the receiver to `events`. `admin` is a key minted first (sessions expire
 * as the clock moves on by days; keys do not), so its own event is sent nowhere.
 */
async function subscribed(t: TestApp, r: Receiver, events: string[]) {
  const s = await signUp(t)
  const admin = await mintKey(t, s.token, ['admin'])
  const res = await t.request('/v1/webhooks', {
    method: 'POST',
    headers: bearer(s.token),
    json: { url: r.url, events },
  })
  expect(res.status).toBe(201)
  const hook = (await res.json()) as Hook
  r.secret = hook.secret
  return { s, hook, admin: admin.key }
}

const deliveriesOf = async (t: TestApp, token: string, id: string) =>
  (await (await t.request(`/v1/webhooks/${id}/deliveries`, { headers: bearer(token) })).json()).items
const hookOf = async (t: TestApp, token: string, id: string) =>
  (await t.request(`/v1/webhooks/${id}`, { headers: bearer(token) })).json()

describe('delivery', () => {
  test('an event is POSTed signed per Standard Webhooks, and the receiver verifies it', async () => {
    const { t, r } = setUp()
    const { s, hook } = await subscribed(t, r, ['api_key.created'])
    const key = await mintKey(t, s.token, ['query'])
    await t.jobs.scheduler.drain()
    expect(r.received).toHaveLength(1)
    const got = r.received[0]!
    expect(got.rejected).toBeNull()
    expect(got.status).toBe(200)
    expect(got.id).toMatch(/^msg_[0-9A-Za-z]{20}$/)
    expect(got.timestamp).toBe(String(t.clock.now().getTime() / 1000))
    expect(got.signature).toMatch(/^v1,[A-Za-z0-9+/]+=*$/)
    expect(got.headers['content-type']).toBe('application/json')
    expect(got.payload).toEqual({
      type: 'api_key.created',
      timestamp: t.clock.now().toISOString(),
      data: {
        id: key.id,
        name: 'key query',
        prefix: key.prefix,
        scopes: ['query'],
        corpus_ids: null,
        actor: { type: 'user', id: s.userId },
      },
    })
    // The listing shows the last delivery; the delivery its one attempt.
    expect((await hookOf(t, s.token, hook.id)).last_delivery).toEqual({
      at: t.clock.now().toISOString(),
      event_type: 'api_key.created',
      attempt: 1,
      status_code: 200,
      ok: true,
    })
    const [d] = await deliveriesOf(t, s.token, hook.id)
    expect(d).toMatchObject({ id: got.id, status: 'succeeded', next_attempt_at: null })
    expect(d.attempts).toEqual([
      {
        attempt: 1,
        at: t.clock.now().toISOString(),
        status_code: 200,
        ok: true,
        error: null,
        duration_ms: expect.any(Number),
      },
    ])
    // Nothing more to send, and events the endpoint did not subscribe to are not sent.
    await t.request(`/v1/api-keys/${key.id}`, { method: 'DELETE', headers: bearer(s.token) })
    await t.jobs.scheduler.drain()
    expect(r.received).toHaveLength(1)
    // Neither the secret nor a signature is ever logged.
    const log = JSON.stringify(t.log.lines)
    expect(log).not.toContain(hook.secret.slice(6))
    expect(log).not.toContain(got.signature.slice(3))
  })

  test('after a 500 the delivery is retried when its jittered wait is up, with the same webhook-id', async () => {
    const { t, r } = setUp()
    const { s, hook } = await subscribed(t, r, ['api_key.created'])
    r.plan({ status: 500 })
    await mintKey(t, s.token, ['query'])
    await t.jobs.scheduler.drain()
    expect(r.received.map((x) => x.status)).toEqual([500])
    const [pending] = await deliveriesOf(t, s.token, hook.id)
    expect(pending.status).toBe('pending')
    expect(pending.attempts[0]).toMatchObject({ attempt: 1, status_code: 500, ok: false, error: 'HTTP 500' })
    const wait = Date.parse(pending.next_attempt_at) - t.clock.now().getTime()
    expect(wait).toBeGreaterThanOrEqual(RETRY_SCHEDULE_MS[0]! * 0.9)
    expect(wait).toBeLessThanOrEqual(RETRY_SCHEDULE_MS[0]! * 1.1)
    expect((await hookOf(t, s.token, hook.id)).last_delivery).toMatchObject({
      attempt: 1,
      status_code: 500,
      ok: false,
    })
    // Not before its time.
    t.clock.advance(wait - 1)
    await t.jobs.scheduler.drain()
    expect(r.received).toHaveLength(1)
    t.clock.advance(1)
    await t.jobs.scheduler.drain()
    expect(r.received.map((x) => x.status)).toEqual([500, 200])
    const [first, second] = r.received
    expect(second!.rejected).toBeNull()
    expect(second!.id).toBe(first!.id)
    expect(second!.body).toBe(first!.body)
    // Each attempt is signed at its own time.
    expect(Number(second!.timestamp) - Number(first!.timestamp)).toBe(Math.floor(wait / 1000))
    const [done] = await deliveriesOf(t, s.token, hook.id)
    expect(done.status).toBe('succeeded')
    expect(done.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([500, 200])
    expect((await hookOf(t, s.token, hook.id)).consecutive_failures).toBe(0)
  })

  test('an attempt that times out is retried, and the retry arrives', async () => {
    const { t, r } = setUp()
    const { s, hook } = await subscribed(t, r, ['api_key.created'])
    r.plan('hang')
    await mintKey(t, s.token, ['query'])
    await t.jobs.scheduler.drain()
    r.release()
    const [pending] = await deliveriesOf(t, s.token, hook.id)
    expect(pending.status).toBe('pending')
    expect(pending.attempts[0]).toMatchObject({
      status_code: null,
      ok: false,
      error: 'Timed out after 300 ms',
    })
    t.clock.advance(RETRY_SCHEDULE_MS[0]! * 1.1)
    await t.jobs.scheduler.drain()
    expect(r.received).toHaveLength(2)
    expect(r.received[1]!.status).toBe(200)
    expect(r.received[1]!.id).toBe(r.received[0]!.id)
    const [done] = await deliveriesOf(t, s.token, hook.id)
    expect(done.status).toBe('succeeded')
  })

  test('a delivery failing every attempt ends failed after eight attempts over about a day', async () => {
    const { t, r } = setUp({ ENGRAM_WEBHOOKS_DISABLE_AFTER_FAILURES: '100' })
    const { s, hook, admin } = await subscribed(t, r, ['api_key.created'])
    r.plan(...Array.from({ length: MAX_ATTEMPTS }, () => ({ status: 503 })))
    await mintKey(t, s.token, ['query'])
    const start = t.clock.now().getTime()
    await t.jobs.scheduler.drain()
    for (const base of RETRY_SCHEDULE_MS) {
      t.clock.advance(base * 1.1)
      await t.jobs.scheduler.drain()
    }
    expect(r.received).toHaveLength(MAX_ATTEMPTS)
    expect(new Set(r.received.map((x) => x.id)).size).toBe(1)
    const [failed] = await deliveriesOf(t, admin, hook.id)
    expect(failed.status).toBe('failed')
    expect(failed.attempts).toHaveLength(8)
    const span = Date.parse(failed.attempts[7].at) - start
    expect(span).toBeGreaterThan(24 * 3_600_000)
    expect(span).toBeLessThan(31 * 3_600_000)
    // No ninth attempt, however long one waits.
    t.clock.advance(7 * 24 * 3_600_000)
    await t.jobs.scheduler.drain()
    expect(r.received).toHaveLength(MAX_ATTEMPTS)
  })
})

describe('keeping deliveries', () => {
  test('an endpoint deleted while an attempt is out: the attempt ends quietly, leaving nothing behind', async () => {
    const { t, r } = setUp()
    const { s, hook, admin } = await subscribed(t, r, ['api_key.created'])
    r.plan('hang')
    await mintKey(t, s.token, ['query'])
    const sending = t.jobs.scheduler.drain()
    await r.arrived(1)
    const gone = await t.request(`/v1/webhooks/${hook.id}`, { method: 'DELETE', headers: bearer(admin) })
    expect(gone.status).toBe(204)
    r.release()
    await sending
    expect(await t.sql.get('SELECT count(*) AS n FROM webhook_attempts')).toEqual({ n: 0 })
    expect(t.log.lines.filter((l) => l.level === 'error')).toEqual([])
  })

  test('ended deliveries are kept 30 days, then pruned as new events come', async () => {
    const { t, r } = setUp()
    const { s, hook, admin } = await subscribed(t, r, ['api_key.created'])
    await mintKey(t, s.token, ['query'])
    await t.jobs.scheduler.drain()
    const [old] = await deliveriesOf(t, admin, hook.id)
    t.clock.advance(29 * 86_400_000)
    await mintKey(t, admin, ['query'])
    await t.jobs.scheduler.drain()
    expect((await deliveriesOf(t, admin, hook.id)).map((d: { id: string }) => d.id)).toContain(old.id)
    t.clock.advance(2 * 86_400_000)
    await mintKey(t, admin, ['query'])
    await t.jobs.scheduler.drain()
    const kept = (await deliveriesOf(t, admin, hook.id)).map((d: { id: string }) => d.id)
    expect(kept).toHaveLength(2)
    expect(kept).not.toContain(old.id)
    expect(await t.sql.get('SELECT count(*) AS n FROM webhook_attempts')).toEqual({ n: 2 })
  })
})

describe('disabling after failures', () => {
  test('a run of failures over the set time disables the endpoint; enabling it again delivers new events', async () => {
    // One worker: the retries run one after another, so which of them disables the endpoint is fixed.
    const { t, r } = setUp({
      ENGRAM_WEBHOOKS_DISABLE_AFTER_FAILURES: '3',
      ENGRAM_WEBHOOKS_DISABLE_AFTER_HOURS: '1',
      ENGRAM_JOB_WORKERS: '1',
    })
    const { s, hook, admin } = await subscribed(t, r, ['api_key.created'])
    r.plan(...Array.from({ length: 10 }, () => ({ status: 500 })))
    await mintKey(t, s.token, ['query'])
    await mintKey(t, s.token, ['query'])
    await mintKey(t, s.token, ['query'])
    await t.jobs.scheduler.drain()
    // Three failures in a row, but not yet for an hour: still enabled.
    expect(r.received.map((x) => x.status)).toEqual([500, 500, 500])
    expect(await hookOf(t, s.token, hook.id)).toMatchObject({ enabled: true, consecutive_failures: 3 })
    // Retries an hour on: the next failure disables it, and ends what was still pending.
    t.clock.advance(3_600_000)
    await t.jobs.scheduler.drain()
    const disabled = await hookOf(t, s.token, hook.id)
    expect(disabled).toMatchObject({
      enabled: false,
      disabled_reason: 'failures',
      disabled_at: t.clock.now().toISOString(),
      consecutive_failures: 4,
    })
    expect(r.received).toHaveLength(4)
    const ended = await deliveriesOf(t, s.token, hook.id)
    expect(ended.map((d: { status: string }) => d.status)).toEqual(['failed', 'failed', 'failed'])
    const audit = (await auditRows(t, 'webhook.disabled')).find((x) => x.target_id === hook.id)
    expect(audit).toMatchObject({ workspace_id: s.workspaceId, actor_type: 'system' })
    expect(JSON.parse(audit!.details)).toEqual({ url: r.url, reason: 'failures', consecutive_failures: 4 })
    // Nothing more is sent: no retries, no new events, no test.
    await mintKey(t, admin, ['query'])
    t.clock.advance(24 * 3_600_000)
    await t.jobs.scheduler.drain()
    expect(r.received).toHaveLength(4)
    await expectError(
      await t.request(`/v1/webhooks/${hook.id}/test`, { method: 'POST', headers: bearer(admin) }),
      '/v1/webhooks',
      409,
      'webhook_disabled',
    )
    await expectError(
      await t.request(`/v1/webhooks/${hook.id}/deliveries/${ended[0].id}/retry`, {
        method: 'POST',
        headers: bearer(admin),
      }),
      '/v1/webhooks',
      409,
      'webhook_disabled',
    )
    // Enabled again (audited), its run of failures forgotten: the next event is delivered.
    const res = await t.request(`/v1/webhooks/${hook.id}/enable`, { method: 'POST', headers: bearer(admin) })
    expect(await res.json()).toMatchObject({ enabled: true, disabled_reason: null, consecutive_failures: 0 })
    expect((await auditRows(t, 'webhook.enabled')).filter((x) => x.target_id === hook.id)).toHaveLength(1)
    r.clear()
    await mintKey(t, admin, ['query'])
    await t.jobs.scheduler.drain()
    expect(r.received.map((x) => x.status)).toEqual([500, 500, 500, 500, 200])
    expect(await hookOf(t, admin, hook.id)).toMatchObject({ enabled: true, last_delivery: { ok: true } })
  })
})

describe('sending a delivery again', () => {
  test('a failed delivery is sent again with its webhook-id once the receiver is mended; a pending or foreign one is refused', async () => {
    const { t, r } = setUp({ ENGRAM_WEBHOOKS_DISABLE_AFTER_FAILURES: '100' })
    const { s, hook, admin } = await subscribed(t, r, ['api_key.created'])
    const retry = (hookId: string, id: string) =>
      t.request(`/v1/webhooks/${hookId}/deliveries/${id}/retry`, { method: 'POST', headers: bearer(admin) })
    r.plan(...Array.from({ length: MAX_ATTEMPTS }, () => ({ status: 500 })))
    await mintKey(t, s.token, ['query'])
    await t.jobs.scheduler.drain()
    const [pending] = await deliveriesOf(t, admin, hook.id)
    await expectError(
      await retry(hook.id, pending.id),
      '/v1/webhooks',
      409,
      'conflict',
      'The delivery is still pending: it is retried by itself.',
    )
    for (const base of RETRY_SCHEDULE_MS) {
      t.clock.advance(base * 1.1)
      await t.jobs.scheduler.drain()
    }
    expect((await deliveriesOf(t, admin, hook.id))[0].status).toBe('failed')
    // The receiver is mended: one more attempt, the same message.
    const res = await retry(hook.id, pending.id)
    expect(res.status).toBe(202)
    expect(await res.json()).toMatchObject({ id: pending.id, status: 'pending' })
    await t.jobs.scheduler.drain()
    expect(r.received).toHaveLength(MAX_ATTEMPTS + 1)
    const again = r.received[MAX_ATTEMPTS]!
    expect(again).toMatchObject({ id: pending.id, rejected: null, status: 200 })
    const [done] = await deliveriesOf(t, admin, hook.id)
    expect(done.status).toBe('succeeded')
    expect(done.attempts).toHaveLength(MAX_ATTEMPTS + 1)
    // Another endpoint of the workspace does not reach this delivery.
    const other = await t.request('/v1/webhooks', {
      method: 'POST',
      headers: bearer(admin),
      json: { url: r.url, events: ['sync.finished'] },
    })
    const otherId = ((await other.json()) as { id: string }).id
    await expectError(
      await retry(otherId, pending.id),
      '/v1/webhooks',
      404,
      'not_found',
      'Delivery not found.',
    )
  })
})

describe('rotating the secret', () => {
  test('the new secret is shown once; for a day deliveries verify with either secret, then with the new one only', async () => {
    const { t, r } = setUp()
    const { s, hook, admin } = await subscribed(t, r, ['api_key.created'])
    const res = await t.request(`/v1/webhooks/${hook.id}/rotate-secret`, {
      method: 'POST',
      headers: bearer(s.token),
    })
    expect(res.status).toBe(200)
    const rotated = await res.json()
    const until = new Date(t.clock.now().getTime() + 24 * 3_600_000).toISOString()
    expect(rotated).toMatchObject({ id: hook.id, previous_secret_expires_at: until })
    expect(rotated.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    expect(rotated.secret).not.toBe(hook.secret)
    const shown = await hookOf(t, admin, hook.id)
    expect(shown.previous_secret_expires_at).toBe(until)
    expect(JSON.stringify(shown)).not.toContain('whsec_')
    const audit = (await auditRows(t, 'webhook.secret_rotated')).find((x) => x.target_id === hook.id)
    expect(JSON.parse(audit!.details)).toEqual({ url: r.url, previous_secret_expires_at: until })
    // The receiver still holds the old secret: the message carries a signature for each.
    await mintKey(t, s.token, ['query'])
    await t.jobs.scheduler.drain()
    expect(r.received[0]!.rejected).toBeNull()
    expect(r.received[0]!.signature.split(' ')).toHaveLength(2)
    r.secret = rotated.secret
    await t.request(`/v1/webhooks/${hook.id}/test`, { method: 'POST', headers: bearer(admin) })
    await t.jobs.scheduler.drain()
    expect(r.received[1]!.rejected).toBeNull()
    // A day on, the old secret no longer signs.
    t.clock.advance(24 * 3_600_000)
    await t.request(`/v1/webhooks/${hook.id}/test`, { method: 'POST', headers: bearer(admin) })
    await t.jobs.scheduler.drain()
    const late = r.received[2]!
    expect(late.rejected).toBeNull()
    expect(late.signature.split(' ')).toHaveLength(1)
    setSystemTime(t.clock.now())
    try {
      expect(() => new Webhook(hook.secret).verify(late.body, late.headers)).toThrow(
        'No matching signature found',
      )
    } finally {
      setSystemTime()
    }
    expect((await hookOf(t, admin, hook.id)).previous_secret_expires_at).toBe(until)
    expect(JSON.stringify(t.log.lines)).not.toContain(rotated.secret.slice(6))
  })
})

describe('what a receiver refuses', () => {
  test('a captured delivery replayed later is rejected for its old timestamp, and a re-dated one for its signature', async () => {
    const { t, r } = setUp()
    const { s, hook } = await subscribed(t, r, ['api_key.created'])
    await t.request(`/v1/webhooks/${hook.id}/test`, { method: 'POST', headers: bearer(s.token) })
    await t.jobs.scheduler.drain()
    const captured = r.received[0]!
    expect(captured.payload?.type).toBe('webhook.test')
    // Ten minutes later (the package's tolerance is five), the same request is refused.
    t.clock.advance(10 * 60_000)
    const replayed = await r.replay(captured)
    expect(replayed.status).toBe(400)
    expect(r.received[1]!.rejected).toBe('Message timestamp too old')
    // Given a fresh timestamp, its signature no longer matches.
    const redated = {
      ...captured,
      headers: { ...captured.headers, 'webhook-timestamp': String(t.clock.now().getTime() / 1000) },
    }
    expect((await r.replay(redated)).status).toBe(400)
    expect(r.received[2]!.rejected).toBe('No matching signature found')
    // Signed with another endpoint's secret: refused too.
    r.secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`
    await t.request(`/v1/webhooks/${hook.id}/test`, { method: 'POST', headers: bearer(s.token) })
    await t.jobs.scheduler.drain()
    expect(r.received[3]!.rejected).toBe('No matching signature found')
  })
})

describe('document and onboarding events', () => {
  test('an upload tells its sync, the document that failed extraction, the one onboarded, and the run', async () => {
    const { t, r } = setUp()
    const events = ['document.ready', 'document.failed', 'sync.finished', 'onboarding.finished']
    const { s } = await subscribed(t, r, events)
    const created = await t.request('/v1/corpora', {
      method: 'POST',
      headers: bearer(s.token),
      json: { name: 'Hooks', auto_onboard: false },
    })
    const corpusId = ((await created.json()) as { id: string }).id
    const docs = await upload(t, s.token, corpusId, [
      { path: 'notes.txt', text: 'The harbour opens at dawn and closes at dusk.' },
      { path: 'broken.pdf', text: 'not a PDF at all', type: 'application/pdf' },
    ])
    const id = (name: string) => docs.find((d) => d.filename === name)!.id
    const run = await train(t, s.token, corpusId)
    // Events of jobs reach the outbox's subscribers when the dispatcher runs, then their deliveries go.
    await t.events.dispatcher.drain()
    await t.jobs.scheduler.drain()
    const got = new Map(r.received.map((x) => [x.payload?.type, x.payload?.data]))
    expect([...got.keys()].sort()).toEqual(events.sort())
    expect(r.received.every((x) => x.rejected === null && x.status === 200)).toBe(true)
    expect(got.get('document.ready')).toEqual({ corpus_id: corpusId, document_id: id('notes.txt') })
    expect(got.get('document.failed')).toEqual({
      corpus_id: corpusId,
      document_id: id('broken.pdf'),
      error: expect.any(String),
    })
    expect(got.get('onboarding.finished')).toEqual({ corpus_id: corpusId, run_id: run.id })
    expect(got.get('sync.finished')).toMatchObject({
      corpus_id: corpusId,
      source: 'upload',
      created: 2,
      failed: 1,
    })
  })
})
