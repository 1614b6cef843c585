import { afterEach, describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { AccountLinks } from '../../../src/features/accounts/accounts.links'
import { AccountsRepo } from '../../../src/features/accounts/accounts.repo'
import { AccountsService } from '../../../src/features/accounts/accounts.service'
import { SsoGate } from '../../../src/features/accounts/accounts.sso'
import { emailTokens } from '../../../src/features/accounts/accounts.tables'
import { WorkspacesService } from '../../../src/features/workspaces/workspaces.service'
import { workspaces } from '../../../src/features/workspaces/workspaces.tables'
import { ManualClock } from '../../../src/platform/clock/clock'
import { loadConfig } from '../../../src/platform/config/config.load'
import { seededRandom } from '../../../src/platform/crypto/random'
import { SessionTokens } from '../../../src/platform/crypto/token'
import type { Store } from '../../../src/platform/db/store'
import { createMailer } from '../../../src/platform/email/email'
import { Outbox } from '../../../src/platform/events/outbox'
import { memoryLogger } from '../../../src/platform/log/log'
import { RateLimiter } from '../../../src/platform/rate-limit/rate-limit'
import { engines, type OpenStore, outcomeCode } from '../../helpers/stores'

// Two of accounts' read-then-write checks raced from two processes, on SQLite and on a real
// PostgreSQL: with `registration = first`, first sign-ups at once make one workspace and the
// others are refused (registration_closed); two "send me a link" requests at once inside the resend
// cooldown send one link. On PostgreSQL each unit would otherwise read before the other wrote.

const opened: OpenStore[] = []
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close()
})

const T0 = '2026-03-01T12:00:00Z'
const CALLER = { ip: '203.0.113.5', requestId: 'req_1' }

/** Accounts as a process builds them on `store`, under `registration` (links answered: email disabled). */
function accountsOn(store: Store, registration: 'first' | 'on', seed: number): AccountsService {
  const config = configOf(registration)
  const clock = new ManualClock(T0)
  const random = seededRandom(seed)
  const log = memoryLogger()
  const tokens = new SessionTokens('test-secret-test-secret-test-secret-0123456789', {
    normal: 3600,
    remember: 86_400,
    cap: 30 * 86_400,
  })
  return new AccountsService({
    store,
    repo: new AccountsRepo(store),
    clock,
    random,
    config,
    mailer: createMailer({ transport: 'disabled', from: 'engram@example.com', log }),
    limiter: new RateLimiter(store, clock, false),
    sessions: tokens,
    workspaces: new WorkspacesService(store, clock, random),
    events: new Outbox(store.db, clock, random, store),
    log,
    sso: new SsoGate(),
  })
}

/** Accounts' links as a process has them on `store` (email disabled: a link sent is answered). */
function linksOn(store: Store, seed: number): AccountLinks {
  const log = memoryLogger()
  return new AccountLinks({
    store,
    repo: new AccountsRepo(store),
    clock: new ManualClock(T0),
    random: seededRandom(seed),
    config: configOf('on'),
    mailer: createMailer({ transport: 'disabled', from: 'engram@example.com', log }),
  })
}

function configOf(registration: 'first' | 'on') {
  return loadConfig({
    env: { ENGRAM_RATE_LIMITS: 'off', ENGRAM_REGISTRATION: registration, ENGRAM_EMAIL: 'disabled' },
    readFile: () => null,
  })
}

function register(a: AccountsService, email: string) {
  return a.register({ email, password: 'correct horse battery', name: 'Ada', workspace_name: 'Acme' }, CALLER)
}

for (const engine of await engines()) {
  describe.skipIf(engine.skip !== null)(`accounts' races on ${engine.name}`, () => {
    /** A database and two processes on it (on SQLite one store: a process's units take turns). */
    async function open(): Promise<{ o: OpenStore; other: Store }> {
      const o = await engine.open()
      opened.push(o)
      return { o, other: engine.name === 'postgres' ? (await o.another()).store : o.store }
    }

    test('four first sign-ups at once with registration = first, from two processes: one workspace, the others registration_closed', async () => {
      const { o, other } = await open()
      const a = accountsOn(o.store, 'first', 1)
      const b = accountsOn(other, 'first', 2)
      // The units themselves at once (register's password hashing before them would stagger them).
      const first = (x: AccountsService, s: Store, email: string) =>
        s.unit(() =>
          x.createWorkspace({
            workspaceName: 'Acme',
            email,
            name: 'Ada',
            passwordHash: null,
            verified: true,
          }),
        )
      const tries: [AccountsService, Store][] = [
        [a, o.store],
        [b, other],
        [a, o.store],
        [b, other],
      ]
      const codes = await Promise.all(
        tries.map(([x, s], i) => outcomeCode(first(x, s, `user${i}@example.com`))),
      )
      expect([...codes].sort()).toEqual([
        'ok',
        'registration_closed',
        'registration_closed',
        'registration_closed',
      ])
      const w = o.store.table(workspaces)
      expect((await o.store.db.select({ id: w.id }).from(w)).length).toBe(1)
      expect(await a.firstRun()).toBe(false)
      // And the door stays shut to the route itself.
      expect(await outcomeCode(register(b, 'alan@example.com'))).toBe('registration_closed')
    })

    test('four reset links issued at once inside the cooldown, from two processes, send one', async () => {
      const { o, other } = await open()
      await register(accountsOn(o.store, 'on', 1), 'ada@example.com')
      const user = (await new AccountsRepo(o.store).userByEmail('ada@example.com'))!
      const links = [linksOn(o.store, 1), linksOn(other, 2), linksOn(o.store, 3), linksOn(other, 4)]
      // The issues themselves at once, as four forgot-password requests that found the account reach them.
      const sent = await Promise.all(
        links.map((l) => l.issue(user, 'reset_password', CALLER, { wait: true })),
      )
      expect(sent.filter((link) => link !== null).length).toBe(1)
      const t = o.store.table(emailTokens)
      const rows = await o.store.db.select({ usedAt: t.usedAt }).from(t).where(eq(t.kind, 'reset_password'))
      expect(rows).toEqual([{ usedAt: null }])
    })
  })
}
