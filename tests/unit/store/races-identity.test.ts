import { afterEach, describe, expect, test } from 'bun:test'
import type { UserRow } from '../../../src/features/accounts/accounts.service'
import { users } from '../../../src/features/accounts/accounts.tables'
import { IdentityRepo } from '../../../src/features/identity/identity.repo'
import { IdentitySignIn } from '../../../src/features/identity/identity.signin'
import { userIdentities } from '../../../src/features/identity/identity.tables'
import { type LinkTicket, LinkTickets } from '../../../src/features/identity/identity.tickets'
import type { IdentityDeps } from '../../../src/features/identity/identity.types'
import { ManualClock } from '../../../src/platform/clock/clock'
import { seededRandom } from '../../../src/platform/crypto/random'
import type { Store } from '../../../src/platform/db/store'
import { Outbox } from '../../../src/platform/events/outbox'
import { engines, type OpenStore, outcomeCode, seedTenants } from '../../helpers/stores'

// Two links of one user's identity at an issuer at once, from two processes, on SQLite and on a real
// PostgreSQL: a user has one identity per issuer (docs/accounts.md). Single sign-on's link of another
// subject is refused (identity_mismatch) as it would be one after the other; a password holder's
// link (Google) replaces the other; the same identity twice is linked once. On PostgreSQL each unit
// would otherwise read "none at this issuer" and both would link.

const opened: OpenStore[] = []
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close()
})

const T0 = 1_764_400_000_123 // ms: past what a 32-bit integer holds
const ISSUER = 'https://login.example.com'
const CALLER = { ip: '203.0.113.5', requestId: 'req_1' }

function ticket(subject: string): LinkTicket {
  return { provider: 'sso', issuer: ISSUER, subject, email: 'ada@example.com', name: 'Ada' }
}

/** Identity's linking as a process has it: its own clock, ids, outbox and repository on `store`. */
function linkerOn(store: Store, seed: number): { signIn: IdentitySignIn; events: Outbox } {
  const clock = new ManualClock(new Date(T0))
  const random = seededRandom(seed)
  const events = new Outbox(store.db, clock, random, store)
  const deps = { store, clock, random, events, repo: new IdentityRepo(store) }
  // Linking reads only these of identity's parts; the flows around it (tickets, accounts) are not run.
  const signIn = new IdentitySignIn(deps as unknown as IdentityDeps, new LinkTickets('a test secret', clock))
  return { signIn, events }
}

for (const engine of await engines()) {
  describe.skipIf(engine.skip !== null)(`identity links racing on ${engine.name}`, () => {
    /** Two processes of one database (on SQLite one store: its units take turns) and the user. */
    async function open() {
      const o = await engine.open()
      opened.push(o)
      await seedTenants(o.store, { workspaces: ['ws_1'], at: T0 })
      await o.store.unit(async () => {
        await o.store.db.insert(o.store.table(users)).values({
          id: 'usr_1',
          workspaceId: 'ws_1',
          email: 'ada@example.com',
          name: 'Ada',
          role: 'member',
          createdAt: T0,
          updatedAt: T0,
        })
      })
      const user = { id: 'usr_1', workspaceId: 'ws_1' } as UserRow
      const other = engine.name === 'postgres' ? (await o.another()).store : o.store
      const a = { store: o.store, ...linkerOn(o.store, 1) }
      const b = { store: other, ...linkerOn(other, 2) }
      const linked = async () => {
        const u = o.store.table(userIdentities)
        return (await o.store.db.select({ subject: u.subject }).from(u)).map((r) => r.subject)
      }
      return { a, b, user, linked }
    }

    test('of two single sign-on links of different subjects at once, one links and the other is identity_mismatch', async () => {
      const { a, b, user, linked } = await open()
      const codes = await Promise.all([
        outcomeCode(a.store.unit(() => a.signIn.linkIdentity(user, ticket('sub_a'), CALLER, 'refuse'))),
        outcomeCode(b.store.unit(() => b.signIn.linkIdentity(user, ticket('sub_b'), CALLER, 'refuse'))),
      ])
      expect([...codes].sort()).toEqual(['identity_mismatch', 'ok'])
      expect(await linked()).toEqual([codes[0] === 'ok' ? 'sub_a' : 'sub_b'])
      expect((await a.events.pending()).filter((e) => e.type === 'identity.linked').length).toBe(1)
    })

    test('of two password-proved links of different subjects at once, both land, the second replacing the first', async () => {
      const { a, b, user, linked } = await open()
      const codes = await Promise.all([
        outcomeCode(a.store.unit(() => a.signIn.linkIdentity(user, ticket('sub_a'), CALLER, 'replace'))),
        outcomeCode(b.store.unit(() => b.signIn.linkIdentity(user, ticket('sub_b'), CALLER, 'replace'))),
      ])
      expect(codes).toEqual(['ok', 'ok'])
      const told = (await a.events.pending()).filter((e) => e.type === 'identity.linked')
      const details = told.map((e) => (e.payload as { details: Record<string, string> }).details)
      // One linked first, with nothing to replace; the other replaced it and is the one left.
      expect(details.map((d) => d.replaced_subject ?? null).filter((s) => s === null).length).toBe(1)
      const second = details.find((d) => d.replaced_subject !== undefined)!
      expect(await linked()).toEqual([second.replaced_subject === 'sub_a' ? 'sub_b' : 'sub_a'])
    })

    test('the same identity linked twice at once (two first sign-ins) is linked once and told once', async () => {
      const { a, b, user, linked } = await open()
      const codes = await Promise.all([
        outcomeCode(a.store.unit(() => a.signIn.linkIdentity(user, ticket('sub_a'), CALLER, 'refuse'))),
        outcomeCode(b.store.unit(() => b.signIn.linkIdentity(user, ticket('sub_a'), CALLER, 'refuse'))),
      ])
      expect(codes).toEqual(['ok', 'ok'])
      expect(await linked()).toEqual(['sub_a'])
      expect((await a.events.pending()).filter((e) => e.type === 'identity.linked').length).toBe(1)
    })
  })
}
