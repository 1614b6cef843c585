import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { type Engram, rowCounts, type Stage, signInWithGoogle, stage } from './identity.fixture'

// Issue 35 follow-up: a new workspace made by a first Google sign-in goes through accounts' own
// sign-up, so the refusals and per-address limits of `/auth/register` hold for it too: the hourly
// and open-mode daily limits (shared with `/auth/register`, so one cannot be used to get round the
// other), disposable addresses and the registration switch. Each refusal lands on the sign-in page
// with its code and writes nothing.

let s: Stage
/** Open mode, one open sign-up per client address a day. */
let open: Engram
/** Invite mode with registration on, two registrations per client address an hour. */
let invite: Engram
/** Invite mode, registration `first` (closed once a workspace exists). */
let first: Engram

beforeAll(async () => {
  s = await stage(
    {
      one: { email: 'one@example.com', email_verified: true, name: 'One' },
      two: { email: 'two@example.com', email_verified: true, name: 'Two' },
      three: { email: 'three@example.com', email_verified: true, name: 'Three' },
      throwaway: { email: 'someone@mailinator.com', email_verified: true, name: 'Throwaway' },
    },
    [
      { ENGRAM_SIGNUP_MODE: 'open', ENGRAM_RATE_LIMITS: 'on', ENGRAM_OPEN_SIGNUP_PER_IP_DAY: '1' },
      {
        ENGRAM_SIGNUP_MODE: 'invite',
        ENGRAM_REGISTRATION: 'on',
        ENGRAM_RATE_LIMITS: 'on',
        ENGRAM_REGISTER_PER_IP_HOUR: '2',
      },
      { ENGRAM_SIGNUP_MODE: 'invite', ENGRAM_REGISTRATION: 'first' },
    ],
  )
  ;[open, invite, first] = s.engrams as [Engram, Engram, Engram]
})
afterAll(() => s.stop())

/** Expects the sign-in page with `code`, no session or ticket, and nothing written. */
async function refusedWith(e: Engram, account: string, code: string) {
  const before = await rowCounts(e.app)
  const landed = await signInWithGoogle(s, e, account)
  expect(`${landed.location.origin}${landed.location.pathname}`).toBe(`${e.base}/console/sign-in`)
  expect(landed.error).toBe(code)
  expect(landed.location.hash).toBe('')
  expect(await rowCounts(e.app)).toEqual(before)
}

async function signedUp(e: Engram, account: string) {
  const landed = await signInWithGoogle(s, e, account)
  expect(landed.error).toBeNull()
  expect(landed.fragment.get('access_token')).toBeTruthy()
}

const register = (e: Engram, email: string) =>
  fetch(`${e.base}/v1/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'correct horse 1', workspace_name: 'W', name: 'N' }),
  })

describe('a new workspace through Google obeys the sign-up limits of /auth/register', () => {
  test("open mode: past the daily open sign-up limit of the client's address it is refused with rate_limited", async () => {
    await signedUp(open, 'one')
    await refusedWith(open, 'two', 'rate_limited')
    // The limit is the one /auth/register counts against: the password form is refused too.
    const res = await register(open, 'four@example.com')
    expect(res.status).toBe(429)
    expect(((await res.json()) as { error: { details: unknown } }).error.details).toMatchObject({
      limit: 'open_signup',
    })
  })

  test('invite mode: password and Google sign-ups share the hourly limit per client address', async () => {
    expect((await register(invite, 'first-password@example.com')).status).toBe(200)
    await signedUp(invite, 'one')
    await refusedWith(invite, 'two', 'rate_limited')
    expect((await register(invite, 'second-password@example.com')).status).toBe(429)
  })
})

describe('a new workspace through Google obeys the refusals of /auth/register', () => {
  test('a disposable address is refused with disposable_email', async () => {
    await refusedWith(first, 'throwaway', 'disposable_email')
  })

  test("registration 'first' closes once a workspace exists", async () => {
    await signedUp(first, 'three')
    await refusedWith(first, 'one', 'registration_closed')
  })
})
