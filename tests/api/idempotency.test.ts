import { afterEach, describe, expect, test } from 'bun:test'
import { sha256Hex } from '../../src/platform/crypto/hash'
import { errorTable } from '../../src/platform/errors/errors'
import { type WidgetFixture, widgetApp } from './conventions.fixture'

let f: WidgetFixture
afterEach(() => f.app.close())

const post = (path: string, body: unknown, key?: string) =>
  f.app.request(path, { method: 'POST', json: body, headers: key ? { 'idempotency-key': key } : {} })

describe('Idempotency-Key', () => {
  test('a retry with the same key replays the first response without running the handler again', async () => {
    f = widgetApp()
    const first = await post('/v1/widgets', { name: 'a' }, 'k-1')
    expect(first.status).toBe(201)
    expect(first.headers.get('idempotent-replayed')).toBeNull()
    const firstBody = await first.json()
    const again = await post('/v1/widgets', { name: 'a' }, 'k-1')
    expect(again.status).toBe(201)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(await again.json()).toEqual(firstBody)
    expect(f.executions()).toBe(1)
    expect(f.count()).toBe(1)
  })

  test('the same key with another body is a 422 idempotency_mismatch and writes nothing', async () => {
    f = widgetApp()
    await post('/v1/widgets', { name: 'a' }, 'k-2')
    const res = await post('/v1/widgets', { name: 'b' }, 'k-2')
    expect(res.status).toBe(422)
    const { error } = await res.json()
    expect(error.code).toBe('idempotency_mismatch')
    expect(f.count()).toBe(1)
    const frozen = await post('/widgets', { name: 'c' }, 'k-2')
    expect(frozen.status).toBe(422)
    expect(await frozen.json()).toEqual({ detail: 'This Idempotency-Key was used with a different request.' })
  })

  test('a key used on another path is a mismatch, not a replay of the other route', async () => {
    f = widgetApp()
    await post('/v1/widgets', { name: 'a' }, 'k-3')
    const res = await post('/widgets', { name: 'a' }, 'k-3')
    expect(res.status).toBe(422)
  })

  test('concurrent duplicates run the handler once and both get the same answer', async () => {
    f = widgetApp()
    let release: () => void = () => {}
    f.hold(
      new Promise<void>((r) => {
        release = r
      }),
    )
    const a = post('/v1/widgets', { name: 'c' }, 'k-4')
    const b = post('/v1/widgets', { name: 'c' }, 'k-4')
    const c = post('/v1/widgets', { name: 'c' }, 'k-4')
    // Let every duplicate reach the store before the first finishes.
    await Promise.resolve()
    release()
    f.hold(null)
    const responses = await Promise.all([a, b, c])
    const bodies = await Promise.all(responses.map((r) => r.json()))
    expect(f.executions()).toBe(1)
    expect(f.count()).toBe(1)
    expect(new Set(bodies.map((x) => JSON.stringify(x))).size).toBe(1)
    expect(responses.filter((r) => r.headers.get('idempotent-replayed') === 'true')).toHaveLength(2)
  })

  test('an error answer is replayed too, and a server error is not remembered', async () => {
    f = widgetApp()
    const conflict = await post('/v1/widgets', { name: 'taken' }, 'k-5')
    expect(conflict.status).toBe(409)
    const replay = await post('/v1/widgets', { name: 'taken' }, 'k-5')
    expect(replay.status).toBe(409)
    expect(replay.headers.get('idempotent-replayed')).toBe('true')
    await post('/v1/widgets', { name: 'boom' }, 'k-6')
    await post('/v1/widgets', { name: 'boom' }, 'k-6')
    expect(f.executions()).toBe(3)
  })

  test('a 429 is not remembered either: a retry after the delay runs again', async () => {
    f = widgetApp()
    const first = await post('/v1/widgets', { name: 'busy' }, 'k-busy')
    expect(first.status).toBe(429)
    const again = await post('/v1/widgets', { name: 'busy' }, 'k-busy')
    expect(again.status).toBe(429)
    expect(again.headers.get('idempotent-replayed')).toBeNull()
    expect(f.executions()).toBe(2)
    expect(await f.app.sql.all('SELECT * FROM idempotency_keys')).toEqual([])
  })

  test('records expire after 24 hours, then the key runs afresh', async () => {
    f = widgetApp()
    await post('/v1/widgets', { name: 'a' }, 'k-7')
    f.app.clock.advance(23 * 3_600_000)
    expect((await post('/v1/widgets', { name: 'a' }, 'k-7')).headers.get('idempotent-replayed')).toBe('true')
    f.app.clock.advance(2 * 3_600_000)
    const fresh = await post('/v1/widgets', { name: 'b' }, 'k-7')
    expect(fresh.status).toBe(201)
    expect(fresh.headers.get('idempotent-replayed')).toBeNull()
    expect(f.count()).toBe(2)
  })

  test('requests without the header are never deduplicated', async () => {
    f = widgetApp()
    await post('/v1/widgets', { name: 'a' })
    await post('/v1/widgets', { name: 'a' })
    expect(f.count()).toBe(2)
  })

  test('a key that is not visible ASCII is a 400', async () => {
    f = widgetApp()
    const res = await post('/v1/widgets', { name: 'a' }, 'x'.repeat(300))
    expect(res.status).toBe(400)
    expect((await res.json()).error.code).toBe('bad_request')
    expect(f.count()).toBe(0)
  })
})

/** The stored idempotency records, as the database has them. */
const records = () =>
  f.app.sql.all<Record<string, unknown>>(
    'SELECT scope, key, request_hash, state, status, headers, body FROM idempotency_keys',
  )

const REUSED = errorTable.idempotency_key_reused.message

describe('Idempotency-Key on a route whose answer carries a secret', () => {
  test('the first request runs; a reuse is a 409 idempotency_key_reused and runs nothing', async () => {
    f = widgetApp()
    const first = await post('/v1/widget-keys', { name: 'a' }, 'once-1')
    expect(first.status).toBe(201)
    expect(await first.json()).toEqual({ name: 'a', secret: 'wsk_1' })
    const again = await post('/v1/widget-keys', { name: 'a' }, 'once-1')
    expect(again.status).toBe(409)
    expect(again.headers.get('idempotent-replayed')).toBeNull()
    expect(await again.json()).toEqual({
      error: {
        code: 'idempotency_key_reused',
        message: REUSED,
        status: 409,
        request_id: again.headers.get('x-request-id'),
      },
    })
    expect(f.executions()).toBe(1)
    expect(f.count()).toBe(1)
  })

  test('only the use of the key is stored: its scope, a keyed fingerprint and the status, never the answer', async () => {
    f = widgetApp()
    await post('/v1/widget-keys', { name: 'a' }, 'once-2')
    const [row] = await records()
    expect(row).toEqual({
      scope: 'public',
      key: 'once-2',
      request_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      state: 'spent',
      status: 201,
      headers: null,
      body: null,
    })
    // The fingerprint is keyed by the server's secret: not the plain SHA-256 of the request.
    const body = JSON.stringify({ name: 'a' })
    expect(row!.request_hash).not.toBe(sha256Hex(`POST\n/v1/widget-keys\n${sha256Hex(body)}`))
    expect(row!.request_hash).not.toBe(sha256Hex(`POST\n/v1/widget-keys\n${body}`))
  })

  test('the frozen mount refuses a reuse with its {detail} body', async () => {
    f = widgetApp()
    expect((await post('/widget-keys', { name: 'a' }, 'once-3')).status).toBe(201)
    const again = await post('/widget-keys', { name: 'a' }, 'once-3')
    expect(again.status).toBe(409)
    expect(await again.json()).toEqual({ detail: REUSED })
    expect(f.executions()).toBe(1)
  })

  test('the same key with another body is still a 422 idempotency_mismatch', async () => {
    f = widgetApp()
    await post('/v1/widget-keys', { name: 'a' }, 'once-4')
    const other = await post('/v1/widget-keys', { name: 'b' }, 'once-4')
    expect(other.status).toBe(422)
    expect((await other.json()).error.code).toBe('idempotency_mismatch')
    expect(f.executions()).toBe(1)
  })

  test('concurrent duplicates run the handler once: the others wait for it and are refused', async () => {
    f = widgetApp()
    let release: () => void = () => {}
    f.hold(
      new Promise<void>((r) => {
        release = r
      }),
    )
    const pending = [1, 2, 3].map(() => post('/v1/widget-keys', { name: 'c' }, 'once-5'))
    // The first is held inside its handler; the duplicates reach the store meanwhile (a few turns
    // of the event loop; should one come later, it still finds the key used and is refused).
    while (f.executions() === 0) await new Promise((r) => setImmediate(r))
    for (let turn = 0; turn < 10; turn++) await new Promise((r) => setImmediate(r))
    expect((await records()).map((r) => r.state)).toEqual(['pending'])
    release()
    f.hold(null)
    const responses = await Promise.all(pending)
    expect(responses.map((r) => r.status).sort()).toEqual([201, 409, 409])
    expect(f.executions()).toBe(1)
    expect(f.count()).toBe(1)
  })

  test('an error answer carries no secret, so it is replayed like any other', async () => {
    f = widgetApp()
    expect((await post('/v1/widget-keys', { name: 'taken' }, 'once-6')).status).toBe(409)
    const replay = await post('/v1/widget-keys', { name: 'taken' }, 'once-6')
    expect(replay.status).toBe(409)
    expect(replay.headers.get('idempotent-replayed')).toBe('true')
    expect((await replay.json()).error.code).toBe('conflict')
    expect(f.executions()).toBe(1)
  })

  test('after 24 hours the key may be used again', async () => {
    f = widgetApp()
    await post('/v1/widget-keys', { name: 'a' }, 'once-7')
    f.app.clock.advance(25 * 3_600_000)
    expect((await post('/v1/widget-keys', { name: 'a' }, 'once-7')).status).toBe(201)
    expect(f.executions()).toBe(2)
  })

  test('the OpenAPI document lists the 409 and says why the key is not replayed', async () => {
    f = widgetApp()
    const doc = await (await f.app.request('/openapi.json')).json()
    for (const path of ['/v1/widget-keys', '/widget-keys']) {
      const op = doc.paths[path].post
      expect(op.responses['409'].description).toContain(`\`idempotency_key_reused\`: ${REUSED}`)
      expect(op.description).toContain('409 `idempotency_key_reused`')
    }
    expect(doc.paths['/v1/widgets'].post.responses['409']?.description ?? '').not.toContain(
      'idempotency_key_reused',
    )
  })
})
