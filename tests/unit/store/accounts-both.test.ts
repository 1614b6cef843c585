import { afterEach, describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { AccountsRepo } from '../../../src/features/accounts/accounts.repo'
import { AccountsService } from '../../../src/features/accounts/accounts.service'
import { SessionService } from '../../../src/features/accounts/accounts.sessions'
import { SsoGate } from '../../../src/features/accounts/accounts.sso'
import { accessRequests, users } from '../../../src/features/accounts/accounts.tables'
import { WorkspacesService } from '../../../src/features/workspaces/workspaces.service'
import { workspaces } from '../../../src/features/workspaces/workspaces.tables'
import { ManualClock } from '../../../src/platform/clock/clock'
import { loadConfig } from '../../../src/platform/config/config.load'
import { seededRandom } from '../../../src/platform/crypto/random'
import { SessionTokens } from '../../../src/platform/crypto/token'
import type { Store } from '../../../src/platform/db/store'
import type { NotifiedCommits } from '../../../src/platform/db/store.postgres'
import { createMailer } from '../../../src/platform/email/email'
import { Outbox } from '../../../src/platform/events/outbox'
import { memoryLogger } from '../../../src/platform/log/log'
import { RateLimiter } from '../../../src/platform/rate-limit/rate-limit'
import { engines, type OpenStore, outcomeCode } from '../../helpers/stores'

// Accounts on SQLite and on a real PostgreSQL: a sign-up makes its workspace and first admin in one
// unit (or neither), a session is checked through a memo that sees every commit (a role change or a
// removal, another process's too, applies on the next request), and the spots two requests can race
// on (an address taken twice, a reset link spent twice, a password changed twice from one version,
// an access request asked twice) let exactly one through, also on two PostgreSQL pools at once.

const opened: OpenStore[] = []
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close()
})

const T0 = '2026-03-01T12:00:00Z'
const CALLER = { ip: '203.0.113.5', requestId: 'req_1' }
const config = loadConfig({
  env: { ENGRAM_RATE_LIMITS: 'off', ENGRAM_REGISTRATION: 'on', ENGRAM_EMAIL: 'disabled' },
  readFile: () => null,
})

interface Accounts {
  service: AccountsService
  sessions: SessionService
}

/** Accounts on a store, as the feature builds them. */
function accountsOn(store: Store, seed = 1): Accounts {
  const clock = new ManualClock(T0)
  const random = seededRandom(seed)
  const log = memoryLogger()
  const tokens = new SessionTokens('test-secret-test-secret-test-secret-0123456789', {
    normal: 3600,
    remember: 86_400,
    cap: 30 * 86_400,
  })
  const sso = new SsoGate()
  const repo = new AccountsRepo(store)
  const ws = new WorkspacesService(store, clock, random)
  const service = new AccountsService({
    store,
    repo,
    clock,
    random,
    config,
    mailer: createMailer({ transport: 'disabled', from: 'engram@example.com', log }),
    limiter: new RateLimiter(store, clock, false),
    sessions: tokens,
    workspaces: ws,
    events: new Outbox(store.db, clock, random, store),
    log,
    sso,
  })
  return { service, sessions: new SessionService(store, repo, clock, tokens, sso, ws) }
}

function register(a: Accounts, email: string) {
  return a.service.register(
    { email, password: 'correct horse battery', name: 'Ada', workspace_name: 'Acme' },
    CALLER,
  )
}

async function count(store: Store, table: typeof users | typeof workspaces | typeof accessRequests) {
  const t = store.table(table)
  return (await store.db.select({ id: t.id }).from(t)).length
}

for (const engine of await engines()) {
  describe.skipIf(engine.skip !== null)(`accounts on ${engine.name}`, () => {
    async function open(): Promise<OpenStore> {
      const o = await engine.open()
      opened.push(o)
      return o
    }
    /** A second process: another pool on PostgreSQL; on SQLite a process's units take turns (one store). */
    async function second(o: OpenStore): Promise<Store> {
      return engine.name === 'postgres' ? (await o.another()).store : o.store
    }

    test('a sign-up makes a workspace and its admin; the session follows every commit', async () => {
      const o = await open()
      const a = accountsOn(o.store)
      expect(await a.service.firstRun()).toBe(true)
      const token = await register(a, 'Ada@Example.com')
      expect(await a.service.firstRun()).toBe(false)
      const p = await a.sessions.authenticate(token.access_token)
      expect(p).toMatchObject({ kind: 'session', role: 'admin', scopes: null, keyId: null })
      const user = await a.service.workspaceUser(p.workspaceId, p.userId!)
      expect(user.email).toBe('ada@example.com')
      expect(await a.service.profile(user.id)).toMatchObject({ workspace_name: 'Acme', role: 'admin' })
      // A sign-in with the password; a wrong one is refused (and audited in a unit of its own).
      const again = await a.service.login('ada@example.com', 'correct horse battery', false, CALLER)
      expect((await a.sessions.authenticate(again.access_token)).userId).toBe(user.id)
      expect(await outcomeCode(a.service.login('ada@example.com', 'wrong', false, CALLER))).toBe(
        'invalid_credentials',
      )
      // This process's role change applies on the next request; another process's removal too.
      await o.store.unit(() => a.service.setRole(user.id, 'member'))
      expect((await a.sessions.authenticate(token.access_token)).role).toBe('member')
      const other = await o.another()
      const told =
        engine.name === 'postgres' ? (o.store.commits as NotifiedCommits).next() : Promise.resolve()
      await other.store.unit(() => accountsOn(other.store, 2).service.removeUser(user.id))
      await told
      expect(await outcomeCode(a.sessions.authenticate(token.access_token))).toBe('unauthorized')
    })

    test('a sign-up whose unit fails, or whose address is taken, writes no workspace and no user', async () => {
      const o = await open()
      const a = accountsOn(o.store)
      await expect(
        o.store.unit(async () => {
          await a.service.createWorkspace({
            workspaceName: 'Acme',
            email: 'ada@example.com',
            name: 'Ada',
            passwordHash: null,
            verified: true,
          })
          throw new Error('refused')
        }),
      ).rejects.toThrow('refused')
      expect(await count(o.store, users)).toBe(0)
      expect(await count(o.store, workspaces)).toBe(0)
      await register(a, 'ada@example.com')
      expect(await outcomeCode(register(a, 'ada@example.com'))).toBe('email_taken')
      // Past the check before the unit (as two sign-ups at once are): the unique index refuses it in the unit.
      expect(
        await outcomeCode(
          o.store.unit(() =>
            a.service.createWorkspace({
              workspaceName: 'Acme 2',
              email: 'ada@example.com',
              name: 'Ada',
              passwordHash: null,
              verified: true,
            }),
          ),
        ),
      ).toBe('email_taken')
      expect(await count(o.store, users)).toBe(1)
      expect(await count(o.store, workspaces)).toBe(1)
    })

    test('two sign-ups of one address at once (two processes): one workspace, the other email_taken', async () => {
      const o = await open()
      const [a, b] = [accountsOn(o.store), accountsOn(await second(o), 2)]
      const results = await Promise.all([
        outcomeCode(register(a, 'ada@example.com')),
        outcomeCode(register(b, 'ada@example.com')),
      ])
      expect(results.sort()).toEqual(['email_taken', 'ok'])
      expect(await count(o.store, users)).toBe(1)
      expect(await count(o.store, workspaces)).toBe(1)
    })

    test('a reset link is spent once, also by two uses at once; the reset ends older sessions', async () => {
      const o = await open()
      const a = accountsOn(o.store)
      const token = await register(a, 'ada@example.com')
      const sent = await a.service.forgotPassword('ada@example.com', CALLER)
      const link = new URL(sent.reset_link!).searchParams.get('token')!
      const b = accountsOn(await second(o), 2)
      const results = await Promise.all([
        outcomeCode(a.service.resetPassword(link, 'new password one')),
        outcomeCode(b.service.resetPassword(link, 'new password two')),
      ])
      expect(results.sort()).toEqual(['invalid_token', 'ok'])
      expect(await outcomeCode(a.sessions.authenticate(token.access_token))).toBe('unauthorized')
      expect(await outcomeCode(a.service.resetPassword(link, 'new password three'))).toBe('invalid_token')
    })

    test('two password changes from one session at once: one changes it, the other ends the session', async () => {
      const o = await open()
      const a = accountsOn(o.store)
      const token = await register(a, 'ada@example.com')
      const p = await a.sessions.authenticate(token.access_token)
      const b = accountsOn(await second(o), 2)
      const results = await Promise.all([
        outcomeCode(
          a.service.changePassword(p.userId!, 'correct horse battery', 'first new one', 'normal', CALLER),
        ),
        outcomeCode(
          b.service.changePassword(p.userId!, 'correct horse battery', 'second new one', 'normal', CALLER),
        ),
      ])
      expect(results.sort()).toEqual(['ok', 'unauthorized'])
      const u = o.store.table(users)
      expect((await o.store.db.select({ v: u.tokenVersion }).from(u))[0]?.v).toBe(1)
    })

    test('an access request asked twice, also at once, is pending once', async () => {
      const o = await open()
      const [a, b] = [accountsOn(o.store), accountsOn(await second(o), 2)]
      await Promise.all([
        a.service.requestAccess('ada@example.com', CALLER),
        b.service.requestAccess('Ada@example.com', CALLER),
      ])
      await a.service.requestAccess('ada@example.com', CALLER)
      await a.service.requestAccess('bob@example.com', CALLER)
      const r = o.store.table(accessRequests)
      const rows = await o.store.db.select({ email: r.email }).from(r).where(eq(r.status, 'pending'))
      expect(rows.map((x) => x.email).sort()).toEqual(['ada@example.com', 'bob@example.com'])
    })
  })
}
