import { afterEach, describe, expect, test } from 'bun:test'
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
