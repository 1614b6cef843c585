import { afterAll, describe, expect, test } from 'bun:test'
import { databaseProbe, StatusService } from '../../src/features/status/status.service'
import { authApp, bearer, expectError, mintKey, mounts, signUp } from './accounts.fixture'

const t = authApp({ env: { ENGRAM_STATUS_CACHE_SECONDS: '30' } })
afterAll(() => t.close())

describe('/status', () => {
  test('needs a credential; any session or key of any scope gets the live status', async () => {
    const s = await signUp(t)
    const key = await mintKey(t, s.token, ['ingest'])
    for (const path of mounts('/status')) {
      await expectError(await t.request(path), path, 401, 'unauthorized', 'Not authenticated.')
      await expectError(await t.request(path, { headers: bearer('nope') }), path, 401, 'unauthorized')
      for (const credential of [s.token, key.key]) {
        const res = await t.request(path, { headers: bearer(credential) })
        expect(res.status).toBe(200)
        expect(await res.json()).toEqual({
          status: 'operational',
          version: expect.any(String),
          checked_at: expect.any(String),
          cache_seconds: 30,
          components: [
            { name: 'database', status: 'operational', latency_ms: expect.any(Number) },
            { name: 'email', status: 'disabled', detail: 'links returned in responses' },
          ],
        })
      }
    }
  })

  test('is measured at most once per configured interval', async () => {
    const s = await signUp(t)
    const get = async () =>
      (await (await t.request('/v1/status', { headers: bearer(s.token) })).json()).checked_at
    t.clock.advance(60_000)
    const first = await get()
    expect(first).toBe(t.clock.now().toISOString())
    t.clock.advance(29_000)
    expect(await get()).toBe(first)
    t.clock.advance(1_000)
    const second = await get()
    expect(second).toBe(t.clock.now().toISOString())
    expect(second).not.toBe(first)
  })

  test('a component that is down makes the platform degraded until the next measurement', async () => {
    let healthy = false
    const status = new StatusService(t.deps.config.status, t.clock, '9.9.9', [
      databaseProbe(t.store),
      {
        name: 'engine',
        check: () => {
          if (!healthy) throw new Error('model server unreachable')
          return { status: 'operational' }
        },
      },
    ])
    const down = await status.status()
    expect(down.status).toBe('degraded')
    expect(down.components[1]).toEqual({ name: 'engine', status: 'down', detail: 'model server unreachable' })
    healthy = true
    expect((await status.status()).status).toBe('degraded')
    t.clock.advance(30_000)
    expect((await status.status()).status).toBe('operational')
  })
})

describe('/status/slo', () => {
  test('publishes the objectives from configuration, to any credential', async () => {
    const custom = authApp({
      env: {
        ENGRAM_SLO_AVAILABILITY_PERCENT: '99.95',
        ENGRAM_SLO_LATENCY_P50_MS: '40',
        ENGRAM_SLO_LATENCY_P99_MS: '400',
        ENGRAM_SLO_WINDOW_DAYS: '28',
      },
    })
    try {
      const s = await signUp(custom)
      for (const path of mounts('/status/slo')) {
        await expectError(await custom.request(path), path, 401, 'unauthorized')
        const res = await custom.request(path, { headers: bearer(s.token) })
        expect(await res.json()).toEqual({
          window_days: 28,
          availability: { target_percent: 99.95 },
          latency: { p50_ms: 40, p99_ms: 400 },
        })
      }
    } finally {
      custom.close()
    }
    const s = await signUp(t)
    const defaults = await (await t.request('/v1/status/slo', { headers: bearer(s.token) })).json()
    expect(defaults).toEqual({
      window_days: 30,
      availability: { target_percent: 99.9 },
      latency: { p50_ms: 50, p99_ms: 500 },
    })
  })
})
