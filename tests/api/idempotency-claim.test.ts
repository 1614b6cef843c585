import { afterEach, describe, expect, test } from 'bun:test'
import { IdempotencyStore } from '../../src/platform/http/idempotency'
import { type WidgetFixture, widgetApp } from './conventions.fixture'

// A request sent with an Idempotency-Key whose first attempt's process died mid-request: its claim
// holds the key for the claim's own expiry (api.idempotency_claim_seconds), not the record's day.

let f: WidgetFixture
afterEach(() => f.app.close())

const post = (path: string, body: unknown, key: string) =>
  f.app.request(path, { method: 'POST', json: body, headers: { 'idempotency-key': key } })

describe('Idempotency-Key claims left by a process that died', () => {
  test('a retry is refused while the claim holds and served once it expired; the old run writes nothing', async () => {
    f = widgetApp({ ENGRAM_IDEMPOTENCY_CLAIM_SECONDS: '30' })
    // The first attempt claimed the key in another process (sharing the app's database) that never
    // answers: its handler is held and its renewals never tick.
    const dead = new IdempotencyStore(f.app.store, f.app.clock, {
      ttlMs: 24 * 3_600_000,
      claimMs: f.app.deps.config.api.idempotency_claim_seconds * 1000,
      secret: f.app.deps.secret,
      owner: 'proc_dead',
      every: () => () => {},
    })
    const body = JSON.stringify({ name: 'a' })
    const hash = dead.fingerprint('POST', '/v1/widgets', new TextEncoder().encode(body))
    let started = false
    let finish: () => void = () => {}
    const held = new Promise<void>((r) => {
      finish = r
    })
    const first = dead.respond('public', 'k-dead', hash, async () => {
      started = true
      await held
      return new Response('{"late":true}', { status: 201, headers: { 'content-type': 'application/json' } })
    })
    while (!started) await new Promise((r) => setImmediate(r))

    f.app.clock.advance(29_999)
    const refused = await post('/v1/widgets', { name: 'a' }, 'k-dead')
    expect(refused.status).toBe(409)
    expect(await refused.json()).toEqual({
      error: {
        code: 'idempotency_in_progress',
        message: 'A request with this Idempotency-Key is still being processed.',
        status: 409,
        request_id: refused.headers.get('x-request-id'),
      },
    })
    expect(f.executions()).toBe(0)

    f.app.clock.advance(1)
    const served = await post('/v1/widgets', { name: 'a' }, 'k-dead')
    expect(served.status).toBe(201)
    expect(served.headers.get('idempotent-replayed')).toBeNull()
    const answer = await served.json()
    expect(answer).toMatchObject({ name: 'a' })
    expect([f.executions(), f.count()]).toEqual([1, 1])

    // The dead attempt ends late: its answer is its own, and the key keeps the one served.
    finish()
    expect(await (await first).json()).toEqual({ late: true })
    const replay = await post('/v1/widgets', { name: 'a' }, 'k-dead')
    expect(replay.headers.get('idempotent-replayed')).toBe('true')
    expect(await replay.json()).toEqual(answer)
    expect(await f.app.sql.all('SELECT state, status FROM idempotency_keys')).toEqual([
      { state: 'done', status: 201 },
    ])
    expect(f.executions()).toBe(1)
  })
})
