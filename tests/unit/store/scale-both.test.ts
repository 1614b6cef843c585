import { afterEach, describe, expect, test } from 'bun:test'
import { corpora } from '../../../src/features/corpora/corpora.tables'
import { ScaleRepo, type ScaleRunRow } from '../../../src/features/scale/scale.repo'
import { workspaces } from '../../../src/features/workspaces/workspaces.tables'
import type { Store } from '../../../src/platform/db/store'
import { engines, type OpenStore } from '../../helpers/stores'

// Saved scale runs on both engines: a run reads back as written, a failed unit keeps none, and the
// runs of a base page newest first by (created_at, id), runs saved in the same millisecond included.

const opened: OpenStore[] = []
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close()
})

const T0 = 1_764_400_000_123 // ms: past what a 32-bit integer holds

function run(id: string, at: number, corpusId = 'cor_1'): ScaleRunRow {
  return {
    id,
    workspaceId: 'ws_1',
    corpusId,
    createdBy: 'usr_1',
    note: id === 'scr_a' ? null : `run ${id} — «ünïcode»`,
    maxConcurrency: 16,
    queries: JSON.stringify(['When did the embargo begin?']),
    records: JSON.stringify([{ level: 1, cart: { qps: 12.5 }, rag: { qps: 3.25 } }]),
    createdAt: at,
  }
}

async function withBases(store: Store): Promise<void> {
  await store.unit(async () => {
    await store.db
      .insert(store.table(workspaces))
      .values({ id: 'ws_1', name: 'Acme', plan: 'beta', createdAt: T0, updatedAt: T0 })
    for (const id of ['cor_1', 'cor_2']) {
      await store.db
        .insert(store.table(corpora))
        .values({ id, workspaceId: 'ws_1', name: id, createdAt: T0, updatedAt: T0 })
    }
  })
}

for (const engine of await engines()) {
  describe.skipIf(engine.skip !== null)(`scale runs on ${engine.name}`, () => {
    async function open(): Promise<{ store: Store; repo: ScaleRepo }> {
      const o = await engine.open()
      opened.push(o)
      await withBases(o.store)
      return { store: o.store, repo: new ScaleRepo(o.store) }
    }

    test('a run reads back as written, and a failed unit keeps none', async () => {
      const { store, repo } = await open()
      await store.unit(() => repo.insert(run('scr_a', T0)))
      await store.unit(() => repo.insert(run('scr_b', T0 + 1)))
      await expect(
        store.unit(async () => {
          await repo.insert(run('scr_c', T0 + 2))
          throw new Error('refused')
        }),
      ).rejects.toThrow('refused')
      expect(await repo.list('cor_1', null, null)).toEqual([run('scr_b', T0 + 1), run('scr_a', T0)])
      expect(await repo.countRuns('cor_1')).toBe(2)
      expect(await repo.countRuns('cor_2')).toBe(0)
    })

    test('runs page newest first by (created_at, id), ties in the same millisecond included', async () => {
      const { store, repo } = await open()
      await store.unit(async () => {
        for (const [id, at] of [
          ['scr_1', T0],
          ['scr_2', T0 + 5],
          ['scr_3', T0 + 5],
          ['scr_4', T0 + 9],
        ] as const)
          await repo.insert(run(id, at))
        await repo.insert(run('scr_x', T0 + 7, 'cor_2'))
      })
      const ids = (rows: ScaleRunRow[]) => rows.map((r) => r.id)
      // A page asks for one more than its limit, to know there is a next one.
      const first = await repo.list('cor_1', null, 2)
      expect(ids(first)).toEqual(['scr_4', 'scr_3', 'scr_2'])
      const second = await repo.list('cor_1', [T0 + 5, 'scr_3'], 2)
      expect(ids(second)).toEqual(['scr_2', 'scr_1'])
      expect(ids(await repo.list('cor_2', null, null))).toEqual(['scr_x'])
    })
  })
}
