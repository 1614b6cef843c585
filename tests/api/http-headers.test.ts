import { afterAll, describe, expect, test } from 'bun:test'
import { createHash } from 'node:crypto'
import { loadConfig } from '../../src/platform/config/config.load'
import { testApp } from '../helpers/app'
import { authApp, bearer, expectError, form, mintKey, mounts, signUp } from './accounts.fixture'

// Issue 18, item 4: security headers on every response, no-store on secrets, 405 with Allow,
// and CORS closed unless the operator lists origins.

const t = authApp()
const withCors = authApp({ env: { ENGRAM_CORS_ORIGINS: 'https://app.example.com, http://localhost:5173' } })
afterAll(() => {
  t.close()
  withCors.close()
})

function expectSecurityHeaders(res: Response) {
  expect(res.headers.get('x-content-type-options')).toBe('nosniff')
  expect(res.headers.get('referrer-policy')).toBe('no-referrer')
  expect(res.headers.get('x-frame-options')).toBe('DENY')
  expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'")
}

describe('security headers', () => {
  test('every kind of answer carries them, and nothing is cacheable by default', async () => {
    const s = await signUp(t)
    const key = await mintKey(t, s.token, ['admin'])
    const answers = [
      await t.request('/'),
      await t.request('/v1'),
      await t.request('/openapi.json'),
      await t.request('/v1/corpora', { headers: bearer(s.token) }),
      await t.request('/v1/corpora'),
      await t.request('/v1/nothing-here'),
      await t.request('/v1/auth/login', { ...form({ username: s.email, password: s.password }) }),
      await t.request('/v1/api-keys', {
        method: 'POST',
        headers: bearer(key.key),
        json: { name: 'x', scopes: [] },
      }),
    ]
    for (const res of answers) {
      expectSecurityHeaders(res)
      expect(res.headers.get('content-security-policy')).toStartWith("default-src 'none'")
      expect(res.headers.get('cache-control')).toBe('no-store')
    }
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 401, 404, 200, 422])
  })

  test('responses carrying a secret are no-store: tokens, new keys and links', async () => {
    const s = await signUp(t)
    const login = await t.request('/auth/login', { ...form({ username: s.email, password: s.password }) })
    const created = await t.request('/v1/api-keys', {
      method: 'POST',
      headers: bearer(s.token),
      json: { name: 'k', scopes: ['query'] },
    })
    t.clock.advance(120_000)
    const reset = await t.request('/v1/auth/forgot-password', { method: 'POST', json: { email: s.email } })
    for (const res of [login, created, reset]) {
      expect(res.status).toBe(200)
      expect(res.headers.get('cache-control')).toBe('no-store')
    }
  })

  test('the docs page runs only its own inline code, allowed by hash', async () => {
    const res = await t.request('/docs')
    expectSecurityHeaders(res)
    const policy = res.headers.get('content-security-policy')!
    const html = await res.text()
    expect(policy).not.toContain('unsafe-inline')
    expect(policy).toContain("connect-src 'self'")
    const script = /<script>([\s\S]*?)<\/script>/.exec(html)![1]!
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1]!
    const hash = (s: string) => `'sha256-${createHash('sha256').update(s).digest('base64')}'`
    expect(policy).toContain(`script-src 'self' ${hash(script)}`)
    expect(policy).toContain(`style-src 'self' ${hash(style)}`)
  })
})

describe('methods', () => {
  test('a wrong method answers 405 with Allow in the shape of its mount, and runs nothing', async () => {
    const s = await signUp(t)
    for (const path of mounts('/corpora')) {
      const res = await t.request(path, { method: 'PUT', headers: bearer(s.token), json: { name: 'x' } })
      expect(res.headers.get('allow')).toBe('GET, HEAD, POST, OPTIONS')
      await expectError(res, path, 405, 'method_not_allowed')
    }
    const one = await t.request('/v1/corpora/cor_nothing', { method: 'PUT' })
    expect(one.headers.get('allow')).toBe('GET, HEAD, PATCH, DELETE, OPTIONS')
    await expectError(
      one,
      '/v1',
      405,
      'method_not_allowed',
      'PUT is not allowed here. Allowed: GET, HEAD, PATCH, DELETE, OPTIONS.',
    )
    const root = await t.request('/', { method: 'DELETE' })
    expect(root.status).toBe(405)
    expect(root.headers.get('allow')).toBe('GET, HEAD, OPTIONS')
    expect((await t.request('/v1/corpora', { headers: bearer(s.token) })).status).toBe(200)
    const head = await t.request('/v1', { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(await head.text()).toBe('')
  })

  test('OPTIONS answers 204 with Allow; an unknown path is still 404', async () => {
    const res = await t.request('/v1/auth/login', { method: 'OPTIONS' })
    expect(res.status).toBe(204)
    expect(res.headers.get('allow')).toBe('POST, OPTIONS')
    expect((await t.request('/v1/not-a-route', { method: 'OPTIONS' })).status).toBe(404)
  })
})

describe('CORS', () => {
  const preflight = (app: typeof t, origin: string) =>
    app.request('/v1/corpora', {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization',
      },
    })

  test('closed by default: no origin is allowed, on preflight or on the request itself', async () => {
    const s = await signUp(t)
    const pre = await preflight(t, 'https://app.example.com')
    expect(pre.headers.get('access-control-allow-origin')).toBeNull()
    const get = await t.request('/v1/corpora', {
      headers: { origin: 'https://app.example.com', ...bearer(s.token) },
    })
    expect(get.status).toBe(200)
    expect(get.headers.get('access-control-allow-origin')).toBeNull()
  })

  test('a listed origin may call the API; any other origin may not', async () => {
    const s = await signUp(withCors)
    const pre = await preflight(withCors, 'https://app.example.com')
    expect(pre.status).toBe(204)
    expect(pre.headers.get('access-control-allow-origin')).toBe('https://app.example.com')
    expect(pre.headers.get('access-control-allow-methods')).toBe('GET, HEAD, POST, OPTIONS')
    expect(pre.headers.get('access-control-allow-headers')).toContain('authorization')
    expect(pre.headers.get('access-control-allow-credentials')).toBeNull()
    const get = await withCors.request('/v1/corpora', {
      headers: { origin: 'http://localhost:5173', ...bearer(s.token) },
    })
    expect(get.headers.get('access-control-allow-origin')).toBe('http://localhost:5173')
    expect(get.headers.get('access-control-expose-headers')).toContain('x-request-id')
    expect(get.headers.get('vary')).toBe('origin')
    for (const origin of ['https://evil.example.com', 'https://app.example.com.evil.com', 'null']) {
      expect((await preflight(withCors, origin)).headers.get('access-control-allow-origin')).toBeNull()
    }
  })

  test('an origin list that is not a list of origins is refused at start-up', () => {
    for (const bad of ['*', 'https://app.example.com/path', 'app.example.com']) {
      expect(() => loadConfig({ env: { ENGRAM_CORS_ORIGINS: bad }, readFile: () => null })).toThrow(
        'ENGRAM_CORS_ORIGINS',
      )
    }
    const app = testApp({ env: { ENGRAM_CORS_ORIGINS: '' } })
    app.close()
  })
})
