import { afterEach, describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { workspaces } from '../../../src/features/workspaces/workspaces.tables'
import { addMember, authApp, bearer, form, mintKey, signIn, signUp } from '../../api/accounts.fixture'
import type { TestApp } from '../../helpers/app'
import { testPostgres } from '../../helpers/postgres'
import { engines } from '../../helpers/stores'

// Issue 40: what decides a request's access holds on the very next request on every replica. Two
// app instances (A and B, each with its own store: on PostgreSQL its own pool and listening
// connection) share one database; a credential used on B (B's memos now hold it), revoked or
// restricted through A, is refused by B on the next request. On PostgreSQL B's commit version is
// frozen first, as if A's notification never came (a listener dropped or slow): so the refusal is
// the request's own read (the auth read, the security revision), not the notification. On SQLite
// the memos stay (one machine: the commit watch sees A's commit in the shared file at once).

const apps: TestApp[] = []
afterEach(() => {
  for (const t of apps.splice(0)) t.close()
})

const pg = await testPostgres()

/** A and B on one database of the engine; on PostgreSQL B hears nothing of A's commits. */
function replicas(engine: 'sqlite' | 'postgres'): { a: TestApp; b: TestApp } {
  let a: TestApp
  let b: TestApp
  if (engine === 'postgres') {
    if (!pg.available) throw new Error(pg.reason)
    const url = pg.migratedDatabaseSync()
    a = authApp({ postgresUrl: url })
    b = authApp({ postgresUrl: url })
  } else {
    a = authApp({ postgresUrl: null })
    b = authApp({ postgresUrl: null, dataDir: a.dataDir })
  }
  apps.push(b, a)
  return { a, b }
}

/**
 * B's memos from now on are never emptied by a commit, its own or told: every memo keyed by the
 * commit version answers what it holds (what a notification late or lost would leave).
 */
function deaf(b: TestApp): void {
  Object.defineProperty(b.store.commits, 'version', { value: () => 1 })
}

const me = (t: TestApp, token: string, peer?: string) =>
  t.request('/v1/auth/me', { headers: bearer(token), peer })

async function status(res: Promise<Response>): Promise<string> {
  const r = await res
  if (r.ok) return String(r.status)
  const body = (await r.json()) as { error?: { code?: string } }
  return `${r.status} ${body.error?.code ?? ''}`
}

for (const engine of await engines()) {
  describe.skipIf(engine.skip !== null)(`the next request on another replica, ${engine.name}`, () => {
    const setUp = async () => {
      const { a, b } = replicas(engine.name)
      const s = await signUp(a)
      if (engine.name === 'postgres') deaf(b)
      return { a, b, s }
    }

    test('a key revoked through A is refused by B on the next request; its neighbour still works', async () => {
      const { a, b, s } = await setUp()
      const gone = await mintKey(a, s.token, ['query'])
      const kept = await mintKey(a, s.token, ['query'])
      for (let i = 0; i < 3; i++) {
        expect(await status(me(b, gone.key))).toBe('200')
        expect(await status(me(b, kept.key))).toBe('200')
      }
      const res = await a.request(`/v1/api-keys/${gone.id}`, { method: 'DELETE', headers: bearer(s.token) })
      expect(res.status).toBe(200)
      expect(await status(me(b, gone.key))).toBe('401 unauthorized')
      expect(await status(me(b, kept.key))).toBe('200')
      // Again and again: never once a request let through after the revocation's answer.
      for (let i = 0; i < 10; i++) {
        const k = await mintKey(a, s.token, ['query'])
        expect(await status(me(b, k.key))).toBe('200')
        expect(
          (await a.request(`/v1/api-keys/${k.id}`, { method: 'DELETE', headers: bearer(s.token) })).status,
        ).toBe(200)
        expect(await status(me(b, k.key))).toBe('401 unauthorized')
      }
    })

    test('a session is refused by B on the next request after a password change through A', async () => {
      const { a, b, s } = await setUp()
      const other = await signIn(a, s.email, s.password)
      expect(await status(me(b, other.access_token))).toBe('200')
      expect(await status(me(b, other.access_token))).toBe('200')
      const res = await a.request('/v1/auth/change-password', {
        method: 'POST',
        headers: bearer(s.token),
        json: { current_password: s.password, new_password: 'another correct horse' },
      })
      expect(res.status).toBe(200)
      const fresh = ((await res.json()) as { access_token: string }).access_token
      expect(await status(me(b, other.access_token))).toBe('401 unauthorized')
      expect(await status(me(b, fresh))).toBe('200')
    })

    test('a workspace suspended through A refuses its keys and sessions on B on the next request', async () => {
      const { a, b, s } = await setUp()
      const key = await mintKey(a, s.token, ['query'])
      expect(await status(me(b, key.key))).toBe('200')
      expect(await status(me(b, s.token))).toBe('200')
      const w = a.store.table(workspaces)
      await a.store.unit(async () => {
        await a.store.db.update(w).set({ status: 'suspended' }).where(eq(w.id, s.workspaceId))
      })
      expect(await status(me(b, key.key))).toBe('403 workspace_suspended')
      expect(await status(me(b, s.token))).toBe('403 workspace_suspended')
    })

    test('an allowlist narrowed through A refuses the removed address on B at once', async () => {
      const { a, b, s } = await setUp()
      const key = await mintKey(a, s.token, ['admin'])
      const save = (cidrs: string[]) =>
        a.request('/v1/enterprise/ip-allowlist', {
          method: 'PUT',
          headers: bearer(key.key),
          peer: '203.0.113.5',
          json: { enabled: true, cidrs },
        })
      expect((await save(['203.0.113.0/24', '198.51.100.0/24'])).status).toBe(200)
      for (const token of [key.key, s.token]) {
        expect(await status(me(b, token, '198.51.100.7'))).toBe('200')
        expect(await status(me(b, token, '192.0.2.1'))).toBe('403 ip_not_allowed')
      }
      expect((await save(['203.0.113.0/24'])).status).toBe(200)
      for (const token of [key.key, s.token]) {
        expect(await status(me(b, token, '198.51.100.7'))).toBe('403 ip_not_allowed')
        expect(await status(me(b, token, '203.0.113.9'))).toBe('200')
      }
      // Widened again through A: B lets the address in at once too.
      expect((await save(['203.0.113.0/24', '198.51.100.0/24'])).status).toBe(200)
      expect(await status(me(b, s.token, '198.51.100.7'))).toBe('200')
    })

    test('SSO enforcement turned on through A ends a password session on B at once', async () => {
      const { a, b, s } = await setUp()
      const key = await mintKey(a, s.token, ['admin'])
      const member = await addMember(a, s.token)
      const sso = (enforce: boolean) =>
        a.request('/v1/enterprise/sso', {
          method: 'PUT',
          headers: bearer(key.key),
          json: {
            issuer: 'https://login.example.org',
            client_id: 'engram',
            client_secret: 'sso-secret',
            domains: ['replicas.example.org'],
            enforce,
          },
        })
      expect((await sso(false)).status).toBe(200)
      expect(await status(me(b, s.token))).toBe('200')
      expect(await status(me(b, member.token))).toBe('200')
      expect((await sso(true)).status).toBe(200)
      expect(await status(me(b, s.token))).toBe('401 unauthorized')
      expect(await status(me(b, member.token))).toBe('401 unauthorized')
      // API keys are not sessions: enforcement leaves them working.
      expect(await status(me(b, key.key))).toBe('200')
      // And a password sign-in on B is refused too (read, not remembered).
      const login = await b.request('/v1/auth/login', form({ username: s.email, password: s.password }))
      expect(login.status).toBe(403)
    })
  })
}
