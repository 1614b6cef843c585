import { afterAll, describe, expect, test } from 'bun:test'
import type { TestApp } from '../helpers/app'
import { authApp, bearer, expectError, issues, rows, signUp } from './accounts.fixture'

// Issue 35 follow-ups: `POST /auth/sso/start` is limited per client address (each start costs a
// look-up at a customer's provider, and would otherwise let anyone probe which domains use SSO
// without limit), and the operator's switch `sso.allow_http_issuer` lets a lab's plain-http
// provider off loopback be a workspace's issuer.

const apps: TestApp[] = []
const app = (env: Record<string, string>) => {
  const t = authApp({ env })
  apps.push(t)
  return t
}
afterAll(() => {
  for (const t of apps) t.close()
})

const start = (t: TestApp, email: string, peer: string) =>
  t.request('/auth/sso/start', { method: 'POST', json: { email }, peer })

describe('the rate limit of POST /auth/sso/start', () => {
  test('past sso.start_per_ip_minute a client gets 429 rate_limited with Retry-After (unknown domains count too)', async () => {
    const t = app({ ENGRAM_RATE_LIMITS: 'on', ENGRAM_SSO_START_PER_IP_MINUTE: '3' })
    for (let i = 0; i < 3; i++) {
      const res = await start(t, `someone${i}@nosso${i}.example.org`, '198.51.100.7')
      await expectError(res, '/auth/sso/start', 404, 'sso_not_configured')
    }
    t.clock.advance(20_000)
    const res = await start(t, 'someone@nosso.example.org', '198.51.100.7')
    expect(res.status).toBe(429)
    // The window opened 20 s ago, so 40 s are left of it.
    expect(res.headers.get('retry-after')).toBe('40')
    await expectError(res, '/auth/sso/start', 429, 'rate_limited', 'Too many requests. Try again later.')
    // The /v1 envelope names the limit.
    const v1 = await t.request('/v1/auth/sso/start', {
      method: 'POST',
      json: { email: 'someone@nosso.example.org' },
      peer: '198.51.100.7',
    })
    expect(v1.status).toBe(429)
    const body = (await v1.json()) as { error: { code: string; details: unknown } }
    expect(body.error.code).toBe('rate_limited')
    expect(body.error.details).toEqual({ limit: 'sso_start', retry_after: 40 })
  })

  test('another client address is not held back, and the window renews after a minute', async () => {
    const t = app({ ENGRAM_RATE_LIMITS: 'on', ENGRAM_SSO_START_PER_IP_MINUTE: '1' })
    expect((await start(t, 'a@nosso.example.org', '198.51.100.8')).status).toBe(404)
    expect((await start(t, 'a@nosso.example.org', '198.51.100.8')).status).toBe(429)
    expect((await start(t, 'a@nosso.example.org', '203.0.113.9')).status).toBe(404)
    // An IPv6 client counts by its /64: another address of the same block is the same client.
    expect((await start(t, 'a@nosso.example.org', '2001:db8:1:2::1')).status).toBe(404)
    expect((await start(t, 'a@nosso.example.org', '2001:db8:1:2::ffff')).status).toBe(429)
    t.clock.advance(60_000)
    expect((await start(t, 'a@nosso.example.org', '198.51.100.8')).status).toBe(404)
  })

  test('the default allows 20 starts a minute per client address', async () => {
    const t = app({ ENGRAM_RATE_LIMITS: 'on' })
    for (let i = 0; i < 20; i++) {
      expect((await start(t, 'a@nosso.example.org', '198.51.100.10')).status).toBe(404)
    }
    expect((await start(t, 'a@nosso.example.org', '198.51.100.10')).status).toBe(429)
  })

  test('the OpenAPI document lists the 429 of the start', async () => {
    const t = app({})
    const doc = (await (await t.request('/openapi.json')).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>
    }
    expect(Object.keys(doc.paths['/v1/auth/sso/start']!.post!.responses)).toContain('429')
  })
})

describe('sso.allow_http_issuer', () => {
  const LAB = 'http://169.254.169.254/realms/lab'
  const put = (t: TestApp, token: string) =>
    t.request('/v1/enterprise/sso', {
      method: 'PUT',
      headers: bearer(token),
      json: { issuer: LAB, client_id: 'engram', client_secret: 'lab-secret', domains: ['lab.example.org'] },
    })

  test('off (the default): an http issuer off loopback is a 422 on the issuer, and nothing is written', async () => {
    const t = app({})
    const s = await signUp(t)
    const res = await put(t, s.token)
    expect((await issues(res, '/v1/enterprise/sso')).map((i) => i.loc)).toEqual([['body', 'issuer']])
    expect(await rows(t, 'sso_configs')).toBe(0)
  })

  test('on: the issuer is saved, and the provider check goes as far as the network (no insecure-issuer refusal)', async () => {
    const t = app({ ENGRAM_SSO_ALLOW_HTTP_ISSUER: 'true' })
    const s = await signUp(t)
    const res = await put(t, s.token)
    expect(res.status).toBe(200)
    expect(((await res.json()) as { issuer: string }).issuer).toBe(LAB)
    const check = await t.request('/v1/enterprise/sso/test', { method: 'POST', headers: bearer(s.token) })
    const body = (await check.json()) as { checks: { name: string; ok: boolean; detail: string }[] }
    // The outbound guard refuses the metadata address itself; the issuer's scheme is not what failed.
    expect(body.checks[0]!.name).toBe('discovery')
    expect(body.checks[0]!.ok).toBe(false)
    expect(body.checks[0]!.detail).toStartWith(`Discovery at ${LAB} failed`)
    expect(body.checks[0]!.detail).not.toContain('is not https://')
  })
})
