import { afterAll, describe, expect, test } from 'bun:test'
import { loadConfig } from '../../src/platform/config/config.load'
import { testApp } from '../helpers/app'
import {
  address,
  authApp,
  bearer,
  expectError,
  issues,
  mintKey,
  mounts,
  rows,
  signUp,
  snapshot,
} from './accounts.fixture'

// Issue 18: safe defaults. Where links go (item 1) is tests/api/link-delivery.test.ts (issue 32 redid it).

const apps: ReturnType<typeof authApp>[] = []
const app = (env: Record<string, string> = {}) => {
  const t = authApp({ env })
  apps.push(t)
  return t
}
afterAll(() => {
  for (const t of apps) t.close()
})

describe('registration switch', () => {
  test('defaults to first: open until the first workspace exists, then closed', async () => {
    expect(loadConfig({ env: {}, readFile: () => null }).accounts.registration).toBe('first')
    const t = app({ ENGRAM_REGISTRATION: 'first' })
    const config = async () => (await (await t.request('/v1/auth/config')).json()).registration_enabled
    expect(await config()).toBe(true)
    await signUp(t)
    expect(await config()).toBe(false)
    const before = await snapshot(t)
    for (const path of mounts('/auth/register')) {
      const res = await t.request(path, {
        method: 'POST',
        json: { email: address(), password: 'a long password', workspace_name: 'Second', name: 'Eve' },
      })
      await expectError(res, path, 403, 'registration_closed')
    }
    expect(await snapshot(t)).toEqual(before)
  })

  test('on keeps registration open; off closes it before any workspace', async () => {
    const on = app({ ENGRAM_REGISTRATION: 'on' })
    await signUp(on)
    await signUp(on)
    expect(await rows(on, 'workspaces')).toBe(2)
    const off = app({ ENGRAM_REGISTRATION: 'off' })
    const res = await off.request('/v1/auth/register', {
      method: 'POST',
      json: { email: address(), password: 'a long password', workspace_name: 'A', name: 'A' },
    })
    await expectError(res, '/v1', 403, 'registration_closed')
    expect(await rows(off, 'workspaces')).toBe(0)
  })

  test('open sign-up mode is not held by the invite-mode switch', async () => {
    const t = app({ ENGRAM_SIGNUP_MODE: 'open', ENGRAM_REGISTRATION: 'first' })
    for (const name of ['One', 'Two']) {
      const res = await t.request('/v1/auth/register', {
        method: 'POST',
        json: { email: address(), password: 'a long password', workspace_name: name, name },
      })
      expect(res.status).toBe(200)
    }
  })
})

describe('API keys on the account routes (item 15)', () => {
  test('an admin-scope key renames its workspace through /auth/setup; a member key is refused', async () => {
    const t = app()
    const s = await signUp(t, { workspace_name: 'Old', name: 'Ada' })
    const admin = await mintKey(t, s.token, ['admin'])
    for (const path of mounts('/auth/setup')) {
      const res = await t.request(path, {
        method: 'POST',
        headers: bearer(admin.key),
        json: { workspace_name: ` New ${path.length} `, name: 'Ignored' },
      })
      expect(res.status).toBe(200)
      expect(await res.json()).toMatchObject({
        kind: 'api_key',
        key: { id: admin.id },
        workspace_id: s.workspaceId,
        workspace_name: `New ${path.length}`,
        role: 'admin',
      })
    }
    // The key has no display name to set: the user's is unchanged.
    expect(await (await t.request('/v1/auth/me', { headers: bearer(s.token) })).json()).toMatchObject({
      name: 'Ada',
      workspace_name: 'New 11',
    })
    const query = await mintKey(t, s.token, ['query'])
    const res = await t.request('/v1/auth/setup', {
      method: 'POST',
      headers: bearer(query.key),
      json: { workspace_name: 'Nope', name: 'Nope' },
    })
    await expectError(res, '/v1', 403, 'missing_scope', 'API key missing required scope: admin')
  })
})

describe('deeply nested JSON (item 3)', () => {
  test('50,000 levels answer 422 on public and protected routes of both mounts, writing nothing', async () => {
    const t = app()
    const s = await signUp(t)
    const deep = `${'['.repeat(50_000)}${']'.repeat(50_000)}`
    const deepObject = `${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}`
    const before = await snapshot(t)
    for (const path of [
      ...mounts('/auth/register'),
      ...mounts('/auth/forgot-password'),
      ...mounts('/corpora'),
    ]) {
      for (const body of [deep, deepObject]) {
        const res = await t.request(path, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...bearer(s.token) },
          body,
        })
        const text = await expectError(res, path, 422, 'validation_error')
        expect(text).toContain('64')
      }
    }
    expect(await snapshot(t)).toEqual(before)
    expect(await rows(t, 'corpora')).toBe(0)
  })

  test('nesting up to the bound is an ordinary validation answer', async () => {
    const t = testApp()
    apps.push(t as ReturnType<typeof authApp>)
    const res = await t.request('/v1/auth/forgot-password', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"email":${'['.repeat(63)}${']'.repeat(63)}}`,
    })
    const body = (await res.json()) as { error: { details: { loc: unknown[] }[] } }
    expect(res.status).toBe(422)
    expect(body.error.details[0]!.loc).toEqual(['body', 'email'])
  })
})

describe('names and text are valid Unicode without control characters (item 5)', () => {
  const bad = ['Acme\u0000Evil', 'Acme\ud800', 'Acme\udc00x', 'Tab\there', 'Bell\u0007', 'C1\u0085']

  test('sign-up, setup, bases and keys refuse them with a 422 naming the field, writing nothing', async () => {
    const t = app()
    const s = await signUp(t)
    const before = { ...(await snapshot(t)), corpora: await rows(t, 'corpora') }
    for (const value of bad) {
      for (const path of mounts('/auth/register')) {
        const res = await t.request(path, {
          method: 'POST',
          json: { email: address(), password: 'a long password', workspace_name: value, name: 'Ok' },
        })
        const found = await issues(res, path)
        expect(found[0]).toMatchObject({ loc: ['body', 'workspace_name'], type: 'string_unicode' })
        expect(found[0]!.msg).toMatch(/control characters|unpaired surrogate/)
      }
      const checks: [string, object][] = [
        ['/v1/auth/setup', { workspace_name: 'Fine', name: value }],
        ['/v1/corpora', { name: value }],
        ['/v1/api-keys', { name: value, scopes: ['query'] }],
      ]
      for (const [path, json] of checks) {
        const res = await t.request(path, { method: 'POST', headers: bearer(s.token), json })
        expect((await issues(res, path))[0]).toMatchObject({ type: 'string_unicode' })
      }
    }
    expect({ ...(await snapshot(t)), corpora: await rows(t, 'corpora') }).toEqual(before)
    expect(await (await t.request('/v1/auth/me', { headers: bearer(s.token) })).json()).toMatchObject({
      name: 'Ada',
      workspace_name: 'Acme',
    })
  })

  test('a question may hold line breaks and tabs but not NUL or an unpaired surrogate', async () => {
    const t = app()
    const s = await signUp(t)
    const base = (await (
      await t.request('/v1/corpora', { method: 'POST', headers: bearer(s.token), json: { name: 'B' } })
    ).json()) as { id: string }
    for (const question of ['what\u0000is', 'what \ud83d is']) {
      const res = await t.request(`/v1/corpora/${base.id}/chat`, {
        method: 'POST',
        headers: bearer(s.token),
        json: { question },
      })
      expect((await issues(res, '/v1'))[0]).toMatchObject({
        loc: ['body', 'question'],
        type: 'string_unicode',
      })
    }
    // Well-formed text with line breaks passes validation (the base is not ready: 409).
    const ok = await t.request(`/v1/corpora/${base.id}/chat`, {
      method: 'POST',
      headers: bearer(s.token),
      json: { question: 'what is\n\tthis? 😀' },
    })
    expect(ok.status).toBe(409)
  })
})
