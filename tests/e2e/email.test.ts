import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { AddressInfo } from 'node:net'
import { type ParsedMail, simpleParser } from 'mailparser'
import { SMTPServer } from 'smtp-server'
import type { TestApp } from '../helpers/app'
import { testApp } from '../helpers/app'

// A real SMTP server (smtp-server) on loopback receives what the app sends through nodemailer; the
// app itself is served over real HTTP on loopback so that the emailed links can be followed as is.

/** Messages the SMTP server received, and waiters for messages still to come. */
class Inbox {
  private readonly messages: ParsedMail[] = []
  private readonly waiters: { to: string; resolve: (m: ParsedMail) => void }[] = []

  /** Called by the SMTP server for each delivered message. */
  deliver(m: ParsedMail): void {
    const i = this.waiters.findIndex((w) => w.to === recipient(m))
    if (i >= 0) this.waiters.splice(i, 1)[0]!.resolve(m)
    else this.messages.push(m)
  }

  /** The next message to `to`, waiting up to five seconds for it. */
  next(to: string): Promise<ParsedMail> {
    const i = this.messages.findIndex((m) => recipient(m) === to)
    if (i >= 0) return Promise.resolve(this.messages.splice(i, 1)[0]!)
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no mail for ${to} within 5 s`)), 5000)
      this.waiters.push({
        to,
        resolve: (m) => {
          clearTimeout(timer)
          resolve(m)
        },
      })
    })
  }
}

function recipient(m: ParsedMail): string {
  const to = Array.isArray(m.to) ? m.to[0] : m.to
  return to?.value[0]?.address ?? ''
}

function linkIn(m: ParsedMail): string {
  const match = /https?:\/\/\S+token=[0-9A-Za-z]+/.exec(m.text ?? '')
  if (!match) throw new Error(`no link in: ${m.text}`)
  return match[0]
}

const box = new Inbox()
const smtp = new SMTPServer({
  authOptional: true,
  // Plain SMTP on loopback: no certificate to trust in a test.
  disabledCommands: ['STARTTLS'],
  logger: false,
  onData(stream, _session, callback) {
    simpleParser(stream)
      .then((m) => {
        box.deliver(m)
        callback()
      })
      .catch(callback)
  },
})

let app: TestApp
let http: ReturnType<typeof Bun.serve>
let base: string

beforeAll(async () => {
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve))
  const smtpPort = (smtp.server.address() as AddressInfo).port
  let handler: (r: Request) => Promise<Response> = async () => new Response('starting', { status: 503 })
  http = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (r) => handler(r) })
  base = `http://127.0.0.1:${http.port}`
  app = testApp({
    env: {
      ENGRAM_SIGNUP_MODE: 'open',
      // A plan with seats to invite into (the default `free` has the admin's one seat only).
      ENGRAM_DEFAULT_PLAN: 'team',
      ENGRAM_EMAIL: `smtp://127.0.0.1:${smtpPort}`,
      ENGRAM_EMAIL_FROM: 'Engram Test <robot@engram.test>',
      ENGRAM_BASE_URL: base,
      ENGRAM_PASSWORD_MEMORY_KIB: '1024',
    },
  })
  handler = app.handle
})

afterAll(async () => {
  await http?.stop(true)
  await new Promise<void>((resolve) => smtp.close(() => resolve()))
  app?.close()
})

const post = (path: string, json: unknown, headers: Record<string, string> = {}) =>
  fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(json),
  })
const login = (username: string, password: string) =>
  fetch(`${base}/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ username, password }).toString(),
  })

/** Does what the console's verification page does with an emailed link: spends its token. */
const verifyBy = (link: string) =>
  fetch(`${base}/v1/auth/verify-email?token=${new URL(link).searchParams.get('token')}`)

describe('email over SMTP', () => {
  test('sign-up mails a verification link that works once when followed', async () => {
    const email = 'new.user@example.com'
    const res = await post('/v1/auth/register', {
      email,
      password: 'correct horse',
      workspace_name: 'Mail Co',
      name: 'Maya',
    })
    expect(res.status).toBe(200)
    // With real email the link is mailed, never returned.
    expect(await res.json()).toEqual({
      access_token: '',
      token_type: 'bearer',
      expires_at: null,
      email_verified: false,
      link_delivery: 'email',
    })
    expect((await login(email, 'correct horse')).status).toBe(403)

    const mail = await box.next(email)
    expect(mail.from?.value[0]).toEqual({ address: 'robot@engram.test', name: 'Engram Test' })
    expect(mail.subject).toBe('Confirm your email address for Engram')
    const link = linkIn(mail)
    expect(link).toStartWith(`${base}/console/verify-email?token=`)

    // The link opens the console's page, which spends the token at the API route.
    const page = await fetch(link)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
    const verify = `${base}/v1/auth/verify-email?token=${new URL(link).searchParams.get('token')}`
    const followed = await fetch(verify)
    expect(followed.status).toBe(200)
    expect(await followed.json()).toEqual({ status: 'verified' })
    const signedIn = await login(email, 'correct horse')
    expect(signedIn.status).toBe(200)
    expect((await signedIn.json()).email_verified).toBe(true)
    expect((await fetch(verify)).status).toBe(400)
  })

  test('a password reset is mailed; its token sets a new password', async () => {
    const email = 'forgetful@example.com'
    await post('/v1/auth/register', { email, password: 'first password', workspace_name: 'W', name: 'F' })
    await verifyBy(linkIn(await box.next(email)))
    const res = await post('/auth/forgot-password', { email })
    expect(await res.json()).toEqual({ status: 'sent', link_delivery: 'email' })
    const mail = await box.next(email)
    expect(mail.subject).toBe('Reset your Engram password')
    const link = linkIn(mail)
    expect(link).toStartWith(`${base}/console/reset-password?token=`)
    const token = new URL(link).searchParams.get('token')
    expect((await post('/v1/auth/reset-password', { token, password: 'second password' })).status).toBe(200)
    expect((await login(email, 'first password')).status).toBe(401)
    expect((await login(email, 'second password')).status).toBe(200)
  })

  test('an invitation is mailed and omitted from the answer; accepting it signs the invitee in', async () => {
    const owner = 'owner@example.com'
    await post('/v1/auth/register', {
      email: owner,
      password: 'owner password',
      workspace_name: 'Team',
      name: 'O',
    })
    await verifyBy(linkIn(await box.next(owner)))
    const token = (await (await login(owner, 'owner password')).json()).access_token
    const invited = await post(
      '/v1/admin/invites',
      { email: 'guest@example.com' },
      { authorization: `Bearer ${token}` },
    )
    expect(await invited.json()).toEqual({ status: 'sent', link_delivery: 'email' })
    const mail = await box.next('guest@example.com')
    expect(mail.subject).toBe('You are invited to Team on Engram')
    const inviteToken = new URL(linkIn(mail)).searchParams.get('token')
    const accepted = await post('/auth/accept-invite', {
      token: inviteToken,
      password: 'guest password',
      name: 'Guest',
    })
    expect(accepted.status).toBe(200)
    const session = (await accepted.json()).access_token
    const me = await (
      await fetch(`${base}/v1/auth/me`, { headers: { authorization: `Bearer ${session}` } })
    ).json()
    expect(me).toMatchObject({ email: 'guest@example.com', workspace_name: 'Team', role: 'member' })
  })

  test('when the mail server is unreachable sign-up still succeeds and the failure is logged', async () => {
    const probe = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response() })
    const closedPort = probe.port
    await probe.stop(true)
    const down = testApp({
      env: {
        ENGRAM_SIGNUP_MODE: 'open',
        ENGRAM_EMAIL: `smtp://127.0.0.1:${closedPort}`,
        ENGRAM_PASSWORD_MEMORY_KIB: '1024',
      },
    })
    try {
      const res = await down.request('/v1/auth/register', {
        method: 'POST',
        json: { email: 'unlucky@example.com', password: 'correct horse', workspace_name: 'W', name: 'U' },
      })
      expect(res.status).toBe(200)
      const line = down.log.lines.find((l) => l.msg === 'email delivery failed')
      expect(line).toMatchObject({ level: 'error', subject: 'Confirm your email address for Engram' })
      expect(JSON.stringify(line)).not.toContain('unlucky@example.com')
    } finally {
      down.close()
    }
  })
})
