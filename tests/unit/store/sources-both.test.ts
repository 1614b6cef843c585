import { afterEach, describe, expect, test } from 'bun:test'
import { corpora } from '../../../src/features/corpora/corpora.tables'
import { type ConnectionRow, type SourceRow, SourcesRepo } from '../../../src/features/sources/sources.repo'
import { sourceItems } from '../../../src/features/sources/sources.tables'
import { workspaces } from '../../../src/features/workspaces/workspaces.tables'
import type { Store } from '../../../src/platform/db/store'
import { engines, type OpenStore } from '../../helpers/stores'

// The sources repository on both engines: connections and sources read back as written, a failed
// unit keeps nothing, and what a sync relies on (files a run did not see, a connection's users,
// cursors reset per connection) answers the same on SQLite and PostgreSQL.

const opened: OpenStore[] = []
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close()
})

const T0 = 1_764_400_000_123 // ms: past what a 32-bit integer holds

function connection(id: string, at: number): ConnectionRow {
  return {
    id,
    workspaceId: 'ws_1',
    kind: 's3',
    name: `Bucket ${id}`,
    settings: '{"bucket":"docs","region":"eu-west-1"}',
    secrets: 'sealed:abc',
    secretsSet: '["secret_access_key"]',
    createdAt: at,
    updatedAt: at,
  }
}

function source(id: string, connectionId: string, at: number, o: Partial<SourceRow> = {}): SourceRow {
  return {
    id,
    workspaceId: 'ws_1',
    corpusId: 'crp_1',
    connectionId,
    mode: 'sync',
    name: `Source ${id}`,
    folder: 'reports/2026',
    pathPrefix: 'imported',
    intervalMinutes: 60,
    cursor: 'page-7',
    currentRunId: null,
    nextJobId: null,
    nextSyncAt: at + 3_600_000,
    lastRunId: null,
    createdAt: at,
    updatedAt: at,
    ...o,
  }
}

async function open(engine: { open(): Promise<OpenStore> }): Promise<{ store: Store; repo: SourcesRepo }> {
  const o = await engine.open()
  opened.push(o)
  const { store } = o
  await store.unit(async () => {
    await store.db
      .insert(store.table(workspaces))
      .values({ id: 'ws_1', name: 'Acme', plan: 'beta', createdAt: T0, updatedAt: T0 })
    await store.db
      .insert(store.table(corpora))
      .values({ id: 'crp_1', workspaceId: 'ws_1', name: 'Docs', createdAt: T0, updatedAt: T0 })
  })
  return { store, repo: new SourcesRepo(store) }
}

for (const engine of await engines()) {
  describe.skipIf(engine.skip !== null)(`sources repository on ${engine.name}`, () => {
    test('connections and sources read back as written, newest first', async () => {
      const { store, repo } = await open(engine)
      await store.unit(async () => {
        await repo.insertConnection(connection('conn_1', T0))
        await repo.insertConnection(connection('conn_2', T0 + 1))
        await repo.insertSource(source('src_a', 'conn_1', T0))
        await repo.insertSource(source('src_b', 'conn_1', T0, { intervalMinutes: null, cursor: null }))
        await repo.insertSource(source('imp_1', 'conn_2', T0 + 5, { mode: 'import', nextSyncAt: null }))
      })
      expect(await repo.connection('ws_1', 'conn_1')).toEqual(connection('conn_1', T0))
      expect(await repo.connection('ws_2', 'conn_1')).toBeNull()
      expect((await repo.connections('ws_1')).map((c) => c.id)).toEqual(['conn_2', 'conn_1'])
      expect(await repo.source('ws_1', 'crp_1', 'src_a')).toEqual(source('src_a', 'conn_1', T0))
      expect(await repo.sourceById('src_b')).toEqual(
        source('src_b', 'conn_1', T0, { intervalMinutes: null, cursor: null }),
      )
      // Same created_at: the id breaks the tie, descending.
      expect((await repo.sources('crp_1', 'sync')).map((s) => s.id)).toEqual(['src_b', 'src_a'])
      expect((await repo.sources('crp_1', 'import')).map((s) => s.id)).toEqual(['imp_1'])
      expect(await repo.usersOf('conn_1')).toBe(2)
      expect(await repo.usersOf('conn_3')).toBe(0)

      const changed = { ...source('src_a', 'conn_2', T0), currentRunId: 'run_1', updatedAt: T0 + 9 }
      await store.unit(() => repo.updateSource(changed))
      expect(await repo.sourceById('src_a')).toEqual(changed)
    })

    test('a failed unit keeps nothing of what it wrote', async () => {
      const { store, repo } = await open(engine)
      await store.unit(() => repo.insertConnection(connection('conn_1', T0)))
      await expect(
        store.unit(async () => {
          await repo.insertSource(source('src_a', 'conn_1', T0))
          await repo.updateConnection({ ...connection('conn_1', T0), name: 'Renamed', updatedAt: T0 + 1 })
          throw new Error('refused')
        }),
      ).rejects.toThrow('refused')
      expect(await repo.sourceById('src_a')).toBeNull()
      expect(await repo.connection('ws_1', 'conn_1')).toEqual(connection('conn_1', T0))
      // A connection a source uses cannot go, even past the service's count (a race): the unit fails whole.
      await store.unit(() => repo.insertSource(source('src_a', 'conn_1', T0)))
      await expect(store.unit(() => repo.deleteConnection('conn_1'))).rejects.toThrow()
      expect(await repo.connection('ws_1', 'conn_1')).toEqual(connection('conn_1', T0))
    })

    test('a run finds the files it did not see (never seen ones too), and cursors reset per connection', async () => {
      const { store, repo } = await open(engine)
      const item = (itemId: string, seenRun: string | null) => ({
        sourceId: 'src_a',
        itemId,
        path: `${itemId}.pdf`,
        version: 'v1',
        documentId: null,
        seenRun,
      })
      await store.unit(async () => {
        await repo.insertConnection(connection('conn_1', T0))
        await repo.insertConnection(connection('conn_2', T0))
        await repo.insertSource(source('src_a', 'conn_1', T0))
        await repo.insertSource(source('src_b', 'conn_2', T0))
        await store.db
          .insert(store.table(sourceItems))
          .values([item('f1', 'run_2'), item('f2', 'run_1'), item('f3', null)])
      })
      expect((await repo.unseen('src_a', 'run_2')).map((i) => i.itemId).sort()).toEqual(['f2', 'f3'])
      expect(await repo.item('src_a', 'f3')).toEqual(item('f3', null))
      // A batch's records in one read: files never seen have none.
      const some = await repo.itemsOf('src_a', ['f1', 'f3', 'f9'])
      expect(some.sort((x, y) => x.itemId.localeCompare(y.itemId))).toEqual([
        item('f1', 'run_2'),
        item('f3', null),
      ])
      expect(await repo.itemsOf('src_a', [])).toEqual([])
      expect(await repo.itemCount('src_a')).toBe(3)
      expect(await repo.items('src_b')).toEqual([])

      await store.unit(() => repo.resetCursors('conn_1'))
      expect((await repo.sourceById('src_a'))?.cursor).toBeNull()
      expect((await repo.sourceById('src_b'))?.cursor).toBe('page-7')

      // A source's items go with it.
      await store.unit(() => repo.deleteSource('src_a'))
      expect(await repo.itemCount('src_a')).toBe(0)
      expect(await repo.usersOf('conn_1')).toBe(0)
    })

    test("a batch's item writes: upserted (the last of a file given twice wins), marked seen and forgotten, by slice", async () => {
      const { store, repo } = await open(engine)
      const item = (
        itemId: string,
        version: string,
        seenRun: string | null,
        documentId: string | null = null,
      ) => ({
        sourceId: 'src_a',
        itemId,
        path: `${itemId}.pdf`,
        version,
        documentId,
        seenRun,
      })
      await store.unit(async () => {
        await repo.insertConnection(connection('conn_1', T0))
        await repo.insertSource(source('src_a', 'conn_1', T0))
        await repo.putItems([item('f1', 'v1', 'run_1'), item('f2', 'v1', 'run_1'), item('f3', 'v1', 'run_1')])
      })
      // More files than one statement takes, one of them twice, and one already recorded.
      const many = Array.from({ length: 1203 }, (_, i) => item(`g${i}`, 'v1', 'run_2'))
      await store.unit(async () => {
        await repo.putItems([item('f1', 'v2', 'run_2', 'doc_1'), ...many, item('g7', 'v9', 'run_2')])
        await repo.markSeen('src_a', ['f2', ...many.map((m) => m.itemId)], 'run_3')
        await repo.deleteItems('src_a', ['f3', 'g1', 'nothing'])
      })
      expect(await repo.item('src_a', 'f1')).toEqual(item('f1', 'v2', 'run_2', 'doc_1'))
      expect(await repo.item('src_a', 'f2')).toEqual(item('f2', 'v1', 'run_3'))
      expect(await repo.item('src_a', 'g7')).toEqual(item('g7', 'v9', 'run_3'))
      expect(await repo.item('src_a', 'f3')).toBeNull()
      expect(await repo.itemCount('src_a')).toBe(2 + 1203 - 1)
      expect((await repo.unseen('src_a', 'run_3')).map((i) => i.itemId)).toEqual(['f1'])
      // A failed unit keeps none of them.
      await expect(
        store.unit(async () => {
          await repo.deleteItems('src_a', ['f1'])
          throw new Error('refused')
        }),
      ).rejects.toThrow('refused')
      expect(await repo.item('src_a', 'f1')).not.toBeNull()
    })
  })
}
