import { afterEach, describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { workspaces } from '../../../src/features/workspaces/workspaces.tables'
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
      await seedTenants(store, { workspaces: ['ws_a', 'ws_b'], at: 1_764_400_000_123 })
      const t = store.table(workspaces)
      const rename = (id: string, name: string) => store.db.update(t).set({ name }).where(eq(t.id, id))
      const first = [gate(), gate()]
      const crossed = (mine: number, ids: [string, string], name: string) =>
        store.unit(async () => {
          await rename(ids[0], name)
          first[mine]!.open()
          await first[1 - mine]!.opened
          await rename(ids[1], name)
        })
      const ends = await Promise.allSettled([
        crossed(0, ['ws_a', 'ws_b'], 'secret name one'),
        crossed(1, ['ws_b', 'ws_a'], 'secret name two'),
      ])
      const refused = ends.flatMap((e) => (e.status === 'rejected' ? [e.reason as unknown] : []))
      expect(refused).toHaveLength(1)
      expect(isConflict(refused[0])).toBe(true)
      expect(isUniqueViolation(refused[0])).toBe(false)
      expect(reasonOf(refused[0])).toBe('A database statement failed: deadlock detected')
      // The winner's name is on both rows: the loser's first write went with its unit.
      const won = ends[0]!.status === 'fulfilled' ? 'secret name one' : 'secret name two'
      const names = (await store.db.select({ name: t.name }).from(t)).map((r) => r.name)
      expect(names).toEqual([won, won])
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
