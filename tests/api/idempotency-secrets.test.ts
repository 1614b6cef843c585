import { afterAll, describe, expect, test } from 'bun:test'
import { sha256Hex } from '../../src/platform/crypto/hash'
import { errorTable } from '../../src/platform/errors/errors'
import { address, authApp, bearer, form, mounts, rows, signUp, tokenOf } from './accounts.fixture'

// Routes whose answer carries a secret (a key, a link, a session token) never store it for an
// Idempotency-Key replay: the first request with a key runs, and a reuse is refused with 409
// `idempotency_key_reused` rather than minting a second key or invitation.

const t = authApp()
afterAll(() => t.close())

const REUSED = errorTable.idempotency_key_reused.message

/** A JSON POST with a bearer token and an Idempotency-Key. */
const post = (path: string, token: string, key: string, json: unknown) =>
  t.request(path, { method: 'POST', headers: { ...bearer(token), 'idempotency-key': key }, json })

/** Asserts the whole body of a refused reuse in the shape of the path's mount. */
async function expectReused(res: Response, path: string): Promise<void> {
  expect(res.status).toBe(409)
  expect(res.headers.get('idempotent-replayed')).toBeNull()
  expect(await res.json()).toEqual(
    path.startsWith('/v1')
      ? {
          error: {
            code: 'idempotency_key_reused',
            message: REUSED,
            status: 409,
            request_id: res.headers.get('x-request-id'),
          },
        }
      : { detail: REUSED },
  )
}

/** The idempotency records, without the fingerprint. */
const records = (key: string) =>
  t.sql.all<Record<string, unknown>>(
    'SELECT scope, state, status, headers, body FROM idempotency_keys WHERE key = ?',
    key,
  )

const keyRows = (workspaceId: string) => rows(t, 'api_keys', `workspace_id = '${workspaceId}'`)

describe('POST /api-keys with an Idempotency-Key', () => {
  for (const path of mounts('/api-keys')) {
    test(`${path}: a reused key is refused with 409 idempotency_key_reused and mints no second key`, async () => {
      const s = await signUp(t)
      const key = `mint-${path}`
      const first = await post(path, s.token, key, { name: 'CI', scopes: ['query'] })
      expect(first.status).toBe(200)
      const minted = await first.json()
      expect(await keyRows(s.workspaceId)).toBe(1)

      await expectReused(await post(path, s.token, key, { name: 'CI', scopes: ['query'] }), path)
      expect(await keyRows(s.workspaceId)).toBe(1)
      // Only the use of the key is kept, under the workspace: never the answer or its secret.
      expect(await records(key)).toEqual([
        { scope: s.workspaceId, state: 'spent', status: 200, headers: null, body: null },
      ])
      const dump = JSON.stringify(await t.sql.all('SELECT * FROM idempotency_keys'))
      expect(dump).not.toContain(minted.key)
      expect(dump).not.toContain(sha256Hex(minted.key))
    })
  }

  test('concurrent duplicates mint one key: one answer has the secret, the others are refused', async () => {
    const s = await signUp(t)
    const responses = await Promise.all(
      Array.from({ length: 5 }, () =>
        post('/v1/api-keys', s.token, 'mint-race', { name: 'x', scopes: ['query'] }),
      ),
    )
    expect(responses.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409])
    for (const r of responses.filter((r) => r.status === 409)) await expectReused(r, '/v1')
    expect(await keyRows(s.workspaceId)).toBe(1)
  })

  test('keys are per workspace: another workspace may use the same Idempotency-Key', async () => {
    const a = await signUp(t)
    const b = await signUp(t)
    expect((await post('/v1/api-keys', a.token, 'shared-key', { name: 'a', scopes: ['query'] })).status).toBe(
      200,
    )
    expect((await post('/v1/api-keys', b.token, 'shared-key', { name: 'a', scopes: ['query'] })).status).toBe(
      200,
    )
    expect(await keyRows(b.workspaceId)).toBe(1)
  })

  test('the same key with another body is a 422 idempotency_mismatch and mints nothing', async () => {
    const s = await signUp(t)
    await post('/v1/api-keys', s.token, 'mint-other', { name: 'a', scopes: ['query'] })
    const res = await post('/v1/api-keys', s.token, 'mint-other', { name: 'b', scopes: ['query'] })
    expect(res.status).toBe(422)
    expect((await res.json()).error.code).toBe('idempotency_mismatch')
    expect(await keyRows(s.workspaceId)).toBe(1)
  })
})

/** The invitation of an address: its row count and the hash of its one live token. */
async function invitesOf(email: string): Promise<{ n: number; tokenHash: string | undefined }> {
  const all = await t.sql.all<{ token_hash: string }>('SELECT token_hash FROM invites WHERE email = ?', email)
  return { n: all.length, tokenHash: all[0]?.token_hash }
}

describe('POST /admin/invites with an Idempotency-Key', () => {
  for (const path of mounts('/admin/invites')) {
    test(`${path}: a reused key is refused with 409 idempotency_key_reused; the first link still works`, async () => {
      const s = await signUp(t)
      const email = address('invitee')
      const key = `invite-${path}`
      const first = await post(path, s.token, key, { email })
      expect(first.status).toBe(200)
      const link = (await first.json()).invite_link as string
      const before = await invitesOf(email)
      expect(before.n).toBe(1)

      await expectReused(await post(path, s.token, key, { email }), path)
      // Run twice, the invitation would have been reissued and the first link spent.
      expect(await invitesOf(email)).toEqual(before)
      expect(before.tokenHash).toBe(sha256Hex(tokenOf(link)))
      expect(await records(key)).toEqual([
        { scope: s.workspaceId, state: 'spent', status: 200, headers: null, body: null },
      ])
    })
  }

  test('concurrent duplicates invite once: the link answered is the one that works', async () => {
    const s = await signUp(t)
    const email = address('race')
    const responses = await Promise.all(
      Array.from({ length: 5 }, () => post('/v1/admin/invites', s.token, 'invite-race', { email })),
    )
    expect(responses.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409])
    const ok = responses.find((r) => r.status === 200)!
    const link = (await ok.json()).invite_link as string
    for (const r of responses.filter((r) => r !== ok)) await expectReused(r, '/v1')
    expect(await invitesOf(email)).toEqual({ n: 1, tokenHash: sha256Hex(tokenOf(link)) })
  })
})

describe('the other routes answering a secret take a key the same way', () => {
  test('sign-up and sign-in (no credential: the `public` scope) refuse a reused key', async () => {
    const email = address('public')
    const body = { email, password: 'correct horse', workspace_name: 'Acme', name: 'Ada' }
    const register = (path: string) =>
      t.request(path, { method: 'POST', headers: { 'idempotency-key': 'register-1' }, json: body })
    expect((await register('/v1/auth/register')).status).toBe(200)
    await expectReused(await register('/v1/auth/register'), '/v1')
    expect(await rows(t, 'users', `email = '${email}'`)).toBe(1)

    const login = form({ username: email, password: 'correct horse' })
    const signIn = () =>
      t.request('/auth/login', { ...login, headers: { ...login.headers, 'idempotency-key': 'login-1' } })
    expect((await signIn()).status).toBe(200)
    await expectReused(await signIn(), '/auth/login')
    expect(await records('login-1')).toEqual([
      { scope: 'public', state: 'spent', status: 200, headers: null, body: null },
    ])
  })

  test('a refused sign-in is replayed like any error answer: it carries no secret', async () => {
    const s = await signUp(t)
    const login = form({ username: s.email, password: 'wrong password' })
    const signIn = () =>
      t.request('/v1/auth/login', { ...login, headers: { ...login.headers, 'idempotency-key': 'login-2' } })
    expect((await signIn()).status).toBe(401)
    const again = await signIn()
    expect(again.status).toBe(401)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
  })

  test('the OpenAPI document lists the 409 on every route answering a secret, on both mounts', async () => {
    const doc = await (await t.request('/openapi.json')).json()
    const secretRoutes = [
      '/api-keys',
      '/admin/invites',
      '/auth/register',
      '/auth/login',
      '/auth/refresh',
      '/auth/change-password',
      '/auth/accept-invite',
      '/auth/resend-verification',
      '/auth/forgot-password',
    ]
    for (const route of secretRoutes) {
      for (const path of mounts(route)) {
        const op = doc.paths[path].post
        expect(op.responses['409'].description).toContain(`\`idempotency_key_reused\`: ${REUSED}`)
      }
    }
    expect(doc.paths['/v1/corpora'].post.responses['409']?.description ?? '').not.toContain(
      'idempotency_key_reused',
    )
  })
})
