import { afterEach, describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { LegalRepo } from '../../../src/features/legal/legal.repo'
import { legalAcceptances } from '../../../src/features/legal/legal.tables'
import { isConflict, isUniqueViolation, reasonOf } from '../../../src/platform/db/failures'
import { engines, type OpenStore, seedTenants } from '../../helpers/stores'

// Two units that each wait for a row the other holds, on a real PostgreSQL: the server ends one of
// them with a deadlock, which isConflict names (a job meeting it is retried, run-job.ts) and whose
// recorded reason is the server's, without the statement's values. The other commits. SQLite runs one
// writing unit at a time, so it never meets one.

const opened: OpenStore[] = []
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close()
})

const T0 = 1_764_400_000_123

function acceptance(id: string, version: string) {
  return {
    id,
    workspaceId: 'ws_1',
    document: 'terms',
    version,
    title: 'Terms',
    sha256: 'cd'.repeat(32),
    actorType: 'user',
    actorId: 'usr_1',
    address: '127.0.0.1',
    acceptedAt: T0,
  }
}

/** A promise and its resolve, for two units to wait for each other's first write. */
function gate() {
  let open = () => {}
  const opened = new Promise<void>((r) => {
    open = r
  })
  return { open, opened }
}

for (const engine of (await engines()).filter((e) => e.name === 'postgres')) {
  describe.skipIf(engine.skip !== null)(`units meeting at once on ${engine.name}`, () => {
    test('a deadlock ends one unit with a conflict, named without the values; the other commits', async () => {
      const o = await engine.open()
      opened.push(o)
      const { store } = o
      await seedTenants(store, { workspaces: ['ws_1'], at: T0 })
      const repo = new LegalRepo(store)
      await store.unit(async () => {
        await repo.insert(acceptance('lga_a', '1'))
        await repo.insert(acceptance('lga_b', '2'))
      })
      const t = store.table(legalAcceptances)
      const retitle = (id: string, title: string) => store.db.update(t).set({ title }).where(eq(t.id, id))
      const first = [gate(), gate()]
      const crossed = (mine: number, ids: [string, string], title: string) =>
        store.unit(async () => {
          await retitle(ids[0], title)
          first[mine]!.open()
          await first[1 - mine]!.opened
          await retitle(ids[1], title)
        })
      const ends = await Promise.allSettled([
        crossed(0, ['lga_a', 'lga_b'], 'secret title one'),
        crossed(1, ['lga_b', 'lga_a'], 'secret title two'),
      ])
      const refused = ends.flatMap((e) => (e.status === 'rejected' ? [e.reason as unknown] : []))
      expect(refused).toHaveLength(1)
      expect(isConflict(refused[0])).toBe(true)
      expect(isUniqueViolation(refused[0])).toBe(false)
      expect(reasonOf(refused[0])).toBe('A database statement failed: deadlock detected')
      // The winner's title is on both rows: the loser's first write went with its unit.
      const won = ends[0]!.status === 'fulfilled' ? 'secret title one' : 'secret title two'
      const titles = (await store.db.select({ title: t.title }).from(t)).map((r) => r.title)
      expect(titles).toEqual([won, won])
    })
  })
}

describe('what a failed statement is', () => {
  test('a unique violation is no conflict, and an error that is not a statement keeps its own message', () => {
    const unique = Object.assign(new Error('UNIQUE constraint failed'), { code: 'SQLITE_CONSTRAINT_UNIQUE' })
    expect(isUniqueViolation(unique)).toBe(true)
    expect(isConflict(unique)).toBe(false)
    expect(reasonOf(unique)).toBe('UNIQUE constraint failed')
    expect(reasonOf('plain')).toBe('plain')
  })
})
