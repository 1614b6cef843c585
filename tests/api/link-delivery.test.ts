import { afterAll, describe, expect, test } from 'bun:test'
import { startupWarnings } from '../../src/cli/serve'
import { loadConfig } from '../../src/platform/config/config.load'
import { LINK_LOG_MESSAGE } from '../../src/platform/email/email'
import type { TestApp } from '../helpers/app'
import { address, authApp, bearer, mounts, signUp, tokenOf } from './accounts.fixture'

// Issue 32, item 1: a verification, reset or invitation link reaches an unauthenticated caller only
// when the operator chose that (ENGRAM_EMAIL=disabled). By default (`log`) every link goes to the
// server log, whoever asks: a reverse proxy on the same host makes every caller arrive over loopback.

// An empty value is the same as an unset one: the built-in default (the test app otherwise answers links).
const DEFAULT_EMAIL = { ENGRAM_EMAIL: '' }
const PROXY = '127.0.0.1'
const CLIENT = '203.0.113.9'

const apps: TestApp[] = []
const app = (env: Record<string, string>) => {
  const t = authApp({ env })
  apps.push(t)
  return t
}
afterAll(() => {
  for (const t of apps) t.close()
})

/** The operator's log lines that carry a link. */
const linkLines = (t: TestApp) => t.log.lines.filter((l) => l.msg === LINK_LOG_MESSAGE)

/** A request as nginx on the same host sends it: from loopback, the client in X-Forwarded-For. */
const viaProxy = (t: TestApp, path: string, json: unknown, headers: Record<string, string> = {}) =>
  t.request(path, { method: 'POST', json, peer: PROXY, headers: { 'x-forwarded-for': CLIENT, ...headers } })

/** Open-mode sign-up of a fresh address through the same-host proxy. */
const openSignUp = (t: TestApp, email: string) =>
  viaProxy(t, '/v1/auth/register', { email, password: 'a long password', workspace_name: 'W', name: 'N' })

describe('default (email = log): links go to the server log, never to a caller', () => {
  test('forgot-password through a reverse proxy on the same host answers no link: the takeover of issue 32', async () => {
    const t = app(DEFAULT_EMAIL)
    const owner = await signUp(t)
    for (const path of mounts('/auth/forgot-password')) {
      t.clock.advance(120_000)
      const res = await viaProxy(t, path, { email: owner.email })
      expect(res.status).toBe(200)
      // Before the fix: {status, link_delivery: 'response', reset_link}, and the owner's account was the caller's.
      expect(await res.json()).toEqual({ status: 'sent', link_delivery: 'server_log' })
    }
    expect(t.deps.config.email.transport).toBe('log')
    // The link went to the operator, with what they need to pass it on.
    const line = linkLines(t).at(-1)!
    expect(line).toMatchObject({ level: 'warn', kind: 'reset_password', email: owner.email })
    expect(line.link).toStartWith('http://localhost:8080/console/reset-password?token=')
    expect(line.request_id).toStartWith('req_')
    // The owner's session is untouched until someone holding the logged link uses it.
    expect((await t.request('/v1/auth/me', { headers: bearer(owner.token) })).status).toBe(200)
  })

  test('no caller gets a link, whatever socket it comes from', async () => {
    const t = app(DEFAULT_EMAIL)
    const owner = await signUp(t)
    // In process (no socket), loopback in every spelling, a remote peer, a claim to be local.
    const callers: [string | undefined, Record<string, string>][] = [
      [undefined, {}],
      ['127.0.0.1', {}],
      ['::1', {}],
      ['::ffff:127.0.0.1', {}],
      ['198.51.100.4', {}],
      ['127.0.0.1', { 'x-forwarded-for': '127.0.0.1' }],
    ]
    for (const [peer, headers] of callers) {
      t.clock.advance(120_000)
      const res = await t.request('/v1/auth/forgot-password', {
        method: 'POST',
        json: { email: owner.email },
        peer,
        headers,
      })
      expect(await res.json()).toEqual({ status: 'sent', link_delivery: 'server_log' })
    }
    expect(linkLines(t).length).toBe(callers.length)
  })

  test('an unknown address answers the same and logs nothing', async () => {
    const t = app(DEFAULT_EMAIL)
    const res = await viaProxy(t, '/v1/auth/forgot-password', { email: 'nobody@example.com' })
    expect(await res.json()).toEqual({ status: 'sent', link_delivery: 'server_log' })
    expect(linkLines(t)).toEqual([])
  })

  test('the logged reset link works once, for whoever the operator gives it to', async () => {
    const t = app(DEFAULT_EMAIL)
    const owner = await signUp(t)
    t.clock.advance(120_000)
    await viaProxy(t, '/v1/auth/forgot-password', { email: owner.email })
    const token = tokenOf(linkLines(t).at(-1)!.link as string)
    const reset = () =>
      t.request('/v1/auth/reset-password', { method: 'POST', json: { token, password: 'passed on by hand' } })
    expect((await reset()).status).toBe(200)
    expect((await reset()).status).toBe(400)
  })

  test('verification links of open sign-up and its resend go to the log only', async () => {
    const t = app({ ...DEFAULT_EMAIL, ENGRAM_SIGNUP_MODE: 'open' })
    const email = address()
    const res = await openSignUp(t, email)
    const body = await res.json()
    expect(body).toEqual({
      access_token: '',
      token_type: 'bearer',
      expires_at: null,
      email_verified: false,
      link_delivery: 'server_log',
    })
    const line = linkLines(t).at(-1)!
    expect(line).toMatchObject({ level: 'warn', kind: 'verify_email', email })
    for (const path of mounts('/auth/resend-verification')) {
      t.clock.advance(120_000)
      const again = await viaProxy(t, path, { email })
      expect(await again.json()).toEqual({ status: 'sent', link_delivery: 'server_log' })
    }
    expect(linkLines(t).filter((l) => l.kind === 'verify_email').length).toBe(3)
    // The last one logged verifies the address.
    const last = linkLines(t).at(-1)!.link as string
    expect((await t.request(`/v1/auth/verify-email?token=${tokenOf(last)}`)).status).toBe(200)
  })

  test('an invitation link is logged for the operator, not answered to the admin', async () => {
    const t = app(DEFAULT_EMAIL)
    const admin = await signUp(t)
    const guest = address('guest')
    for (const path of mounts('/admin/invites')) {
      const res = await t.request(path, {
        method: 'POST',
        headers: bearer(admin.token),
        json: { email: guest },
        peer: PROXY,
      })
      expect(res.status).toBe(200)
      expect(await res.json()).toEqual({ status: 'sent', link_delivery: 'server_log' })
    }
    const line = linkLines(t).at(-1)!
    expect(line).toMatchObject({ level: 'warn', kind: 'invite', email: guest })
    expect(line.link).toStartWith('http://localhost:8080/console/accept-invite?token=')
    const accepted = await t.request('/v1/auth/accept-invite', {
      method: 'POST',
      json: { token: tokenOf(line.link as string), password: 'guest password', name: 'Guest' },
    })
    expect(accepted.status).toBe(200)
  })

  test('no response body carries a logged link, and each link is logged exactly once', async () => {
    // On a plan with seats to invite into (the default `free` has the admin's one seat only).
    const t = app({ ...DEFAULT_EMAIL, ENGRAM_SIGNUP_MODE: 'open', ENGRAM_DEFAULT_PLAN: 'team' })
    const bodies: string[] = []
    const keep = async (res: Promise<Response>) => bodies.push(await (await res).text())
    // An open-mode admin, verified with the link the operator read in the log.
    const admin = address('admin')
    await keep(openSignUp(t, admin))
    await t.request(`/v1/auth/verify-email?token=${tokenOf(linkLines(t).at(-1)!.link as string)}`)
    const session = await t.request('/v1/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username: admin, password: 'a long password' }).toString(),
    })
    const token = ((await session.json()) as { access_token: string }).access_token
    const email = address()
    await keep(openSignUp(t, email))
    t.clock.advance(120_000)
    await keep(viaProxy(t, '/v1/auth/resend-verification', { email }))
    await keep(viaProxy(t, '/v1/auth/forgot-password', { email: admin }))
    await keep(viaProxy(t, '/v1/admin/invites', { email: address('guest') }, bearer(token)))
    expect(linkLines(t).map((l) => l.kind)).toEqual([
      'verify_email',
      'verify_email',
      'verify_email',
      'reset_password',
      'invite',
    ])
    const links = linkLines(t).map((l) => l.link as string)
    expect(new Set(links).size).toBe(5)
    expect(bodies.length).toBe(5)
    for (const link of links) {
      for (const body of bodies) expect(body).not.toContain(tokenOf(link))
      // Nothing else in the log repeats it (the request lines, for instance).
      expect(t.log.lines.filter((l) => JSON.stringify(l).includes(tokenOf(link))).length).toBe(1)
    }
  })

  test('/auth/config says where links go before anything is asked; /status says so too', async () => {
    const t = app(DEFAULT_EMAIL)
    for (const path of mounts('/auth/config')) {
      expect(await (await t.request(path)).json()).toMatchObject({
        email_enabled: false,
        link_delivery: 'server_log',
      })
    }
    const s = await signUp(t)
    const status = await (await t.request('/v1/status', { headers: bearer(s.token) })).json()
    expect(status.components).toContainEqual({
      name: 'email',
      status: 'disabled',
      detail: 'links written to the server log',
    })
  })
})

describe("email = disabled: the spec behaviour, by the operator's explicit choice", () => {
  test('links are answered to any caller, a remote one included, and nothing is logged', async () => {
    const t = app({ ENGRAM_EMAIL: 'disabled' })
    const admin = await signUp(t)
    const forgot = await viaProxy(t, '/v1/auth/forgot-password', { email: admin.email })
    expect(await forgot.json()).toEqual({
      status: 'sent',
      link_delivery: 'response',
      reset_link: expect.stringMatching(/^http:\/\/localhost:8080\/console\/reset-password\?token=\w{43}$/),
    })
    const invite = await viaProxy(t, '/v1/admin/invites', { email: address('guest') }, bearer(admin.token))
    expect(await invite.json()).toEqual({
      status: 'sent',
      link_delivery: 'response',
      invite_link: expect.stringMatching(/^http:\/\/localhost:8080\/console\/accept-invite\?token=\w{43}$/),
    })
    expect(await (await t.request('/v1/auth/config')).json()).toMatchObject({ link_delivery: 'response' })
    const open = app({ ENGRAM_EMAIL: 'disabled', ENGRAM_SIGNUP_MODE: 'open' })
    const reg = await open.request('/v1/auth/register', {
      method: 'POST',
      peer: '198.51.100.4',
      json: { email: address(), password: 'a long password', workspace_name: 'W', name: 'N' },
    })
    expect(await reg.json()).toMatchObject({ link_delivery: 'response', verify_link: expect.any(String) })
    expect([...linkLines(t), ...linkLines(open)]).toEqual([])
  })
})

describe('email over SMTP', () => {
  test('an invitation the mail server refuses is recorded and answered as failed, its link nowhere', async () => {
    // Port 9 on loopback: nothing listens, the connection is refused at once.
    const t = app({ ENGRAM_EMAIL: 'smtp://127.0.0.1:9' })
    const admin = await signUp(t)
    const res = await t.request('/v1/admin/invites', {
      method: 'POST',
      headers: bearer(admin.token),
      json: { email: address('guest') },
    })
    expect(await res.json()).toEqual({ status: 'failed', link_delivery: 'email' })
    expect(linkLines(t)).toEqual([])
    expect(t.log.lines.find((l) => l.msg === 'email delivery failed')).toMatchObject({ level: 'error' })
    expect(await (await t.request('/v1/auth/config')).json()).toMatchObject({
      email_enabled: true,
      link_delivery: 'email',
    })
  })
})

describe('start-up', () => {
  const config = (env: Record<string, string>) => loadConfig({ env, readFile: () => null })

  test('disabled is an error line saying anyone can take over any account; log says where links go', () => {
    expect(startupWarnings(config({ ENGRAM_EMAIL: 'disabled', ENGRAM_HOST: '127.0.0.1' }))).toEqual([
      {
        level: 'error',
        msg: expect.stringContaining('anyone who can reach this server can take over any account'),
      },
    ])
    expect(startupWarnings(config({}))).toEqual([
      { level: 'info', msg: expect.stringContaining('links are written to this log') },
    ])
    expect(startupWarnings(config({ ENGRAM_EMAIL: 'smtp://mail.example.com:25' }))).toEqual([])
  })

  test('ENGRAM_EMAIL accepts log, disabled and smtp(s) URLs only', () => {
    expect(() => config({ ENGRAM_EMAIL: 'sendmail' })).toThrow('log, disabled or an smtp(s):// URL')
    expect(config({ ENGRAM_EMAIL: 'smtps://u:p@mail.example.com' }).email.transport).toStartWith('smtps://')
  })
})
