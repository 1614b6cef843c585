import { afterAll, describe, expect, test } from 'bun:test'
import type { TestApp } from '../helpers/app'
import { authApp, bearer } from './accounts.fixture'

// The IP allowlist over real sockets: the server listens dual-stack on a free port, and requests
// come from 127.0.0.1 (which such a socket reports as ::ffff:127.0.0.1) and from ::1, so the address
// checked is the one Bun's socket gives, not one a test made up.

const stops: (() => Promise<void>)[] = []
afterAll(async () => {
  for (const stop of stops) await stop()
})

/** The app behind a real listener on [::]:<free port>; `at(host)` is its URL through that host. */
async function listening(env: Record<string, string> = {}) {
  const t: TestApp = authApp({ env })
  const server = Bun.serve({ hostname: '::', port: 0, fetch: t.handle })
  stops.push(async () => {
    await server.stop(true)
    t.close()
  })
  const at = (host: '127.0.0.1' | '[::1]') => `http://${host}:${server.port}`
  return { t, at }
}

const V4 = '127.0.0.1' as const
const V6 = '[::1]' as const

/** Signs up over the socket from 127.0.0.1; answers the admin's token. */
async function admin(at: (h: typeof V4 | typeof V6) => string): Promise<string> {
  const res = await fetch(`${at(V4)}/v1/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      email: 'ops@example.com',
      password: 'correct horse',
      workspace_name: 'Acme',
      name: 'Ops',
    }),
  })
  expect(res.status).toBe(200)
  return ((await res.json()) as { access_token: string }).access_token
}

const me = (url: string, token: string, headers: Record<string, string> = {}) =>
  fetch(`${url}/v1/auth/me`, { headers: { ...bearer(token), ...headers } })

const saveList = (url: string, token: string, body: object, headers: Record<string, string> = {}) =>
  fetch(`${url}/v1/enterprise/ip-allowlist`, {
    method: 'PUT',
    headers: { ...bearer(token), 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })

/** The code and address of a refusal. */
const refusal = async (res: Response) => {
  const body = (await res.json()) as { error: { code: string; details: { address: string } } }
  return [res.status, body.error.code, body.error.details.address]
}

describe('the allowlist over real sockets', () => {
  test('an IPv4 client is matched as IPv4 through a dual-stack socket, and ::1 is another address', async () => {
    const { at } = await listening()
    const token = await admin(at)
    const seen = await fetch(`${at(V4)}/v1/enterprise/ip-allowlist`, { headers: bearer(token) })
    expect(((await seen.json()) as { your_address: string }).your_address).toBe('127.0.0.1')
    expect((await saveList(at(V4), token, { enabled: true, cidrs: ['127.0.0.0/8'] })).status).toBe(200)
    expect((await me(at(V4), token)).status).toBe(200)
    expect(await refusal(await me(at(V6), token))).toEqual([403, 'ip_not_allowed', '::1'])
    // Saved from 127.0.0.1, a list of ::1 alone shuts the admin's own address out: refused, then confirmed.
    const swap = await saveList(at(V4), token, { enabled: true, cidrs: ['::1'] })
    expect(await refusal(swap)).toEqual([409, 'would_lock_out', '127.0.0.1'])
    const confirmed = await saveList(at(V4), token, { enabled: true, cidrs: ['::1'], confirm_lockout: true })
    expect(confirmed.status).toBe(200)
    expect((await me(at(V6), token)).status).toBe(200)
    expect(await refusal(await me(at(V4), token))).toEqual([403, 'ip_not_allowed', '127.0.0.1'])
  })

  test('X-Forwarded-For counts only when the socket peer is a trusted proxy', async () => {
    const trusted = await listening({ ENGRAM_TRUSTED_PROXIES: 'loopback' })
    const token = await admin(trusted.at)
    const fromOffice = { 'x-forwarded-for': '203.0.113.9' }
    expect(
      (await saveList(trusted.at(V6), token, { enabled: true, cidrs: ['203.0.113.0/24'] }, fromOffice))
        .status,
    ).toBe(200)
    expect((await me(trusted.at(V6), token, fromOffice)).status).toBe(200)
    expect((await me(trusted.at(V4), token, { 'x-forwarded-for': '2001:db8::1' })).status).toBe(403)
    // No header: the proxy itself is the client, and it is not listed.
    expect(await refusal(await me(trusted.at(V4), token))).toEqual([403, 'ip_not_allowed', '127.0.0.1'])

    const untrusted = await listening()
    const other = await admin(untrusted.at)
    const claimed = await saveList(
      untrusted.at(V4),
      other,
      { enabled: true, cidrs: ['203.0.113.0/24'] },
      fromOffice,
    )
    expect(await refusal(claimed)).toEqual([409, 'would_lock_out', '127.0.0.1'])
  })
})
