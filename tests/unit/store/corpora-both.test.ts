import { afterEach, describe, expect, test } from 'bun:test'
import { and, eq, inArray } from 'drizzle-orm'
import type { NewParent } from '../../../src/features/corpora/corpora.content.repo'
import { IDS_A_STATEMENT } from '../../../src/features/corpora/corpora.rows'
import { CorporaService, type CorpusRow } from '../../../src/features/corpora/corpora.service'
import { corpora, documents } from '../../../src/features/corpora/corpora.tables'
import { UnitsRepo } from '../../../src/features/corpora/corpora.units.repo'
import { engineBases, engineSections } from '../../../src/features/engine/engine.tables'
import type { Actor } from '../../../src/platform/auth/principal'
import { ManualClock } from '../../../src/platform/clock/clock'
import { seededRandom } from '../../../src/platform/crypto/random'
import type { Store } from '../../../src/platform/db/store'
import { domainEvents } from '../../../src/platform/events/events.tables'
import { Outbox } from '../../../src/platform/events/outbox'
import { untilWaiting } from '../../helpers/pg-locks'
import { engines, type OpenStore, seedTenants } from '../../helpers/stores'

// Corpora on SQLite and on a real PostgreSQL: bases read back as written, a failed unit writes
// nothing, a base's counters and storage bytes follow every insert, status move and delete (SQLite's
// triggers, PostgreSQL's PL/pgSQL ones) and equal a fresh count of the rows, as does an engine base's
// cartridge bytes; and the lifecycle's guarded moves hold when another process changed the rows.

const opened: OpenStore[] = []
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close()
})

const T0 = 1_764_400_000_123
const actor: Actor = { type: 'user', id: 'usr_1' }

function service(store: Store, seed = 1): CorporaService {
  const clock = new ManualClock(new Date(T0))
  const random = seededRandom(seed)
  const events = new Outbox(store.db, clock, random, store)
  return new CorporaService({ store, clock, random, events })
}

function parent(id: string, corpusId: string, rawKey: string, size: number): NewParent {
  return {
    id,
    workspaceId: 'ws_1',
    corpusId,
    path: `${id}.txt`,
    size,
    contentType: 'text/plain',
    sha256: `sha_${rawKey}`,
    source: 'upload',
    managedBy: null,
    rawKey,
    now: T0,
  }
}

type Counters = Pick<
  CorpusRow,
  | 'n_documents'
  | 'documents_ready'
  | 'documents_onboarding'
  | 'documents_pending'
  | 'documents_failed'
  | 'n_rows'
  | 'storage_bytes'
>

/** A base's counters as stored. */
async function stored(store: Store, id: string): Promise<Counters> {
  const c = store.table(corpora)
  const [r] = await store.db.select().from(c).where(eq(c.id, id))
  return {
    n_documents: r!.nDocuments,
    documents_ready: r!.documentsReady,
    documents_onboarding: r!.documentsOnboarding,
    documents_pending: r!.documentsPending,
    documents_failed: r!.documentsFailed,
    n_rows: r!.nRows,
    storage_bytes: r!.storageBytes,
  }
}

/** A base's counters counted afresh from its rows: each raw object once, text sidecars of parents. */
async function counted(store: Store, id: string): Promise<Counters> {
  const d = store.table(documents)
  const rows = await store.db.select().from(d).where(eq(d.corpusId, id))
  const parents = rows.filter((r) => r.parentId === null)
  const by = (s: string) => parents.filter((p) => p.status === s).length
  const objects = new Map(rows.filter((r) => r.rawKey !== null).map((r) => [r.rawKey!, r.size]))
  const sidecars = parents.filter((p) => p.textKey !== null).reduce((n, p) => n + p.textBytes, 0)
  return {
    n_documents: parents.length,
    documents_ready: by('ready'),
    documents_onboarding: by('onboarding'),
    documents_pending: by('pending'),
    documents_failed: by('failed'),
    n_rows: rows.length,
    storage_bytes: sidecars + [...objects.values()].reduce((a, b) => a + b, 0),
  }
}

async function expectCounters(store: Store, id: string, expected: Partial<Counters>): Promise<void> {
  const now = await stored(store, id)
  expect(now).toEqual(await counted(store, id))
  expect(now).toMatchObject(expected)
}

const extraction = (sections: number) => ({
  textKey: 'text/d1',
  textChars: 100,
  textBytes: 40,
  contentType: 'text/plain',
  title: null,
  cartId: null,
  sections: Array.from({ length: sections }, (_, i) => ({
    id: `d1#${i}`,
    index: i,
    title: `S${i}`,
    cartId: `cart_${i}`,
    sha256: `s${i}`,
    size: 20,
    chars: 50,
    offset: i * 50,
  })),
  pageRanges: null,
  extractorVersion: 1,
  now: T0 + 1,
})

for (const engine of await engines()) {
  describe.skipIf(engine.skip !== null)(`corpora on ${engine.name}`, () => {
    async function open(): Promise<{ o: OpenStore; store: Store; corpora: CorporaService }> {
      const o = await engine.open()
      opened.push(o)
      await seedTenants(o.store, {
        workspaces: ['ws_1', 'ws_2'],
        bases: [
          { id: 'cor_a', workspaceId: 'ws_1' },
          { id: 'cor_b', workspaceId: 'ws_1' },
        ],
        at: T0,
      })
      return { o, store: o.store, corpora: service(o.store) }
    }

    /** One document of base cor_a extracted into two sections, both waiting for a run. */
    async function twoSections() {
      const { store, corpora: svc } = await open()
      await svc.insertParents([parent('d1', 'cor_a', 'r1', 100)])
      await svc.setExtracted((await svc.document('cor_a', 'd1'))!, extraction(2))
      return { store, svc, units: await svc.runs.waiting('cor_a') }
    }

    test('bases read back as written, by workspace, newest first; a failed unit writes none', async () => {
      const { store, corpora: svc } = await open()
      const made = await svc.create('ws_1', '  Manuals ', { autoOnboard: false })
      expect(made).toMatchObject({ workspace_id: 'ws_1', name: 'Manuals', status: 'new', auto_onboard: 0 })
      expect(await svc.get('ws_1', made.id)).toEqual(made)
      await expect(svc.get('ws_2', made.id)).rejects.toThrow('not found')
      expect(await svc.exists('ws_2', made.id)).toBe(false)
      const all = await svc.list('ws_1', null)
      expect(all.total).toBe(3)
      const page = await svc.list('ws_1', { limit: 2, after: null })
      expect(page.items).toHaveLength(2)
      const changed = await svc.update('ws_1', made.id, { autoOnboard: true }, actor)
      expect(changed.auto_onboard).toBe(1)
      await expect(
        store.unit(async () => {
          await svc.insertParents([parent('d9', 'cor_a', 'r9', 9)])
          await svc.setStatus('ws_1', 'cor_a', 'training', T0 + 1)
          throw new Error('refused')
        }),
      ).rejects.toThrow('refused')
      expect((await svc.get('ws_1', 'cor_a')).status).toBe('new')
      await expectCounters(store, 'cor_a', { n_documents: 0, storage_bytes: 0 })
      // The settings change was told in its unit (its audit row's event).
      const e = store.table(domainEvents)
      const told = await store.db.select().from(e).where(eq(e.type, 'corpus.settings_changed'))
      expect(told).toHaveLength(1)
    })

    test('new parents read back as written, whatever their number: each statement prepared once per row count', async () => {
      const { store, corpora: svc } = await open()
      const d = store.table(documents)
      // 1, 3, 1 again (the same statement), and 70 (a full statement of 64 and one of 6), in two bases.
      const batches = [1, 3, 1, 70].map((n, b) =>
        Array.from({ length: n }, (_, i) => ({
          ...parent(`p${b}_${i}`, i % 2 ? 'cor_b' : 'cor_a', `r${b}_${i}`, 10 + i),
          // Nulls and values alike go through the placeholders.
          contentType: i % 3 === 0 ? null : 'text/markdown',
          managedBy: i % 4 === 1 ? 'push' : null,
          now: T0 + b,
        })),
      )
      for (const batch of batches) await svc.insertParents(batch)
      const rows = await store.db
        .select()
        .from(d)
        .where(inArray(d.corpusId, ['cor_a', 'cor_b']))
      expect(rows).toHaveLength(75)
      const byId = new Map(rows.map((r) => [r.id, r]))
      for (const [b, batch] of batches.entries())
        for (const p of batch) {
          expect(byId.get(p.id)).toMatchObject({
            workspaceId: p.workspaceId,
            corpusId: p.corpusId,
            parentId: null,
            path: p.path,
            size: p.size,
            contentType: p.contentType,
            sha256: p.sha256,
            status: 'pending',
            source: p.source,
            managedBy: p.managedBy,
            rawKey: p.rawKey,
            sectionCount: 1,
            textChars: 0,
            textKey: null,
            createdAt: T0 + b,
            updatedAt: T0 + b,
          })
        }
      await expectCounters(store, 'cor_a', { n_documents: 39, documents_pending: 39 })
      await expectCounters(store, 'cor_b', { n_documents: 36, documents_pending: 36 })
    })

    test("a base's counters and storage bytes follow inserts, status moves and deletes", async () => {
      const { store, corpora: svc } = await open()
      // One statement: two files of one content (one object) and another; a third in another base.
      await svc.insertParents([parent('d1', 'cor_a', 'r1', 100), parent('d2', 'cor_a', 'r1', 100)])
      await svc.insertParents([parent('d3', 'cor_a', 'r2', 50), parent('d4', 'cor_b', 'r3', 7)])
      await expectCounters(store, 'cor_a', {
        n_documents: 3,
        documents_pending: 3,
        n_rows: 3,
        storage_bytes: 150,
      })
      await expectCounters(store, 'cor_b', { n_documents: 1, storage_bytes: 7 })
      const d1 = (await svc.document('cor_a', 'd1'))!
      await svc.setExtracted(d1, extraction(2))
      await expectCounters(store, 'cor_a', { n_documents: 3, n_rows: 5, storage_bytes: 190 })
      // A run takes them (the parent rolls up), then settles: sections ready, one file failed.
      const units = await svc.runs.waiting('cor_a')
      expect(units.map((u) => u.id)).toEqual(['d2', 'd3', 'd1#0', 'd1#1'])
      await svc.runs.take(units, T0 + 2)
      await expectCounters(store, 'cor_a', { documents_onboarding: 3, documents_pending: 0 })
      const [, d3, s0, s1] = units
      await svc.runs.settle(
        { ready: [s0!, s1!], failed: [{ unit: d3!, error: 'bad' }], parents: ['d1'] },
        T0 + 3,
      )
      await expectCounters(store, 'cor_a', {
        documents_ready: 1,
        documents_onboarding: 1,
        documents_failed: 1,
      })
      // New content for d2: the object it shared stays (d1 holds it), its new one counts.
      await svc.replaceContent('d2', { ...parent('d2', 'cor_a', 'r4', 30), now: T0 + 4 })
      await expectCounters(store, 'cor_a', {
        documents_pending: 1,
        documents_onboarding: 0,
        storage_bytes: 220,
      })
      await svc.markFailed('d2', 'r4', 'unreadable', T0 + 5)
      await expectCounters(store, 'cor_a', { documents_failed: 2, documents_pending: 0 })
      // Deleting d1 takes its sections (cascade), its sidecar and the object no row names now.
      await svc.deleteDocument('ws_1', 'cor_a', 'd1#1', actor)
      await expectCounters(store, 'cor_a', { n_documents: 2, n_rows: 2, storage_bytes: 80 })
      // Two rows naming one object deleted in one statement: its bytes go once.
      await svc.insertParents([parent('d5', 'cor_a', 'r5', 11), parent('d6', 'cor_a', 'r5', 11)])
      await expectCounters(store, 'cor_a', { n_documents: 4, storage_bytes: 91 })
      const d = store.table(documents)
      await store.unit(() => store.db.delete(d).where(inArray(d.id, ['d5', 'd6'])))
      await expectCounters(store, 'cor_a', { n_documents: 2, storage_bytes: 80 })
      // A base deleted with its rows: its receipt is told once.
      const receipt = await svc.deleteCorpus('ws_1', 'cor_b', actor)
      expect(receipt.deleted).toEqual(['d4'])
      await expect(svc.deleteCorpus('ws_1', 'cor_b', actor)).rejects.toThrow('not found')
      const e = store.table(domainEvents)
      const told = await store.db.select().from(e).where(eq(e.type, 'corpus.deleted'))
      expect(told).toHaveLength(1)
    })

    test('a run takes any number of units at once, more than a statement of ids holds', async () => {
      const { store, corpora: svc } = await open()
      const n = IDS_A_STATEMENT + 100
      await svc.insertParents(Array.from({ length: n }, (_, i) => parent(`t${i}`, 'cor_a', `rt${i}`, 1)))
      const units = await svc.runs.waiting('cor_a')
      expect(units).toHaveLength(n)
      await svc.runs.take(units, T0 + 2)
      await expectCounters(store, 'cor_a', { documents_onboarding: n, documents_pending: 0 })
      const d = store.table(documents)
      const moved = await store.db.select().from(d).where(eq(d.status, 'onboarding'))
      expect(new Set(moved.map((r) => r.id))).toEqual(new Set(units.map((u) => u.id)))
      expect(moved.every((r) => r.updatedAt === T0 + 2 && r.error === null)).toBe(true)
    })

    test("an engine base's cartridge bytes count each cartridge once as sizes are recorded", async () => {
      const { store } = await open()
      const b = store.table(engineBases)
      const s = store.table(engineSections)
      const section = (id: string, cartKey: string) => ({
        sectionId: id,
        baseId: 'cor_a',
        documentId: 'd1',
        title: id,
        filename: 'd1.txt',
        cartKey,
        nPassages: 1,
      })
      await store.unit(async () => {
        await store.db.insert(b).values({ baseId: 'cor_a', key: 1 })
        await store.db.insert(s).values([section('s1', 'c1'), section('s2', 'c1'), section('s3', 'c2')])
      })
      const bytes = async () => (await store.db.select().from(b).where(eq(b.baseId, 'cor_a')))[0]!.cartBytes
      await store.unit(() => store.db.update(s).set({ cartBytes: 100 }).where(eq(s.sectionId, 's1')))
      expect(await bytes()).toBe(100)
      // Both sections of one cartridge in one statement: its bytes count once.
      await store.unit(() => store.db.update(s).set({ cartBytes: 120 }).where(eq(s.cartKey, 'c1')))
      expect(await bytes()).toBe(120)
      await store.unit(() => store.db.update(s).set({ cartBytes: 5 }).where(eq(s.sectionId, 's3')))
      expect(await bytes()).toBe(125)
    })

    test('a settle sets each of its units ready only while it holds the text its batch read', async () => {
      const { o, store, corpora: svc } = await open()
      const other = service((await o.another()).store, 2)
      const ids = ['d1', 'd2', 'd3']
      await svc.insertParents(ids.map((id, i) => parent(id, 'cor_a', `r${i + 1}`, 10)))
      for (const id of ids)
        await svc.setExtracted((await svc.document('cor_a', id))!, {
          ...extraction(0),
          textKey: `text/${id}`,
        })
      const units = await svc.runs.waiting('cor_a')
      expect(units.map((u) => u.textKey).sort()).toEqual(['text/d1', 'text/d2', 'text/d3'])
      await svc.runs.take(units, T0 + 2)
      // d2 got new content meanwhile, extracted to the text another unit of the batch was read with:
      // the settle matches each row with its own text, so d2 waits for the next run.
      await other.replaceContent('d2', { ...parent('d2', 'cor_a', 'r4', 12), now: T0 + 3 })
      await other.setExtracted((await other.document('cor_a', 'd2'))!, {
        ...extraction(0),
        textKey: 'text/d3',
      })
      await svc.runs.settle({ ready: units, failed: [], parents: [] }, T0 + 4)
      const statuses = await Promise.all(ids.map(async (id) => (await svc.document('cor_a', id))!.status))
      expect(statuses).toEqual(['ready', 'pending', 'ready'])
      const e = store.table(domainEvents)
      const told = await store.db.select().from(e).where(eq(e.type, 'document.ready'))
      expect(told.map((t) => JSON.parse(t.payload).documentId).sort()).toEqual(['d1', 'd3'])
      await expectCounters(store, 'cor_a', {
        documents_ready: 2,
        documents_pending: 1,
        documents_onboarding: 0,
      })
    })

    test("the lifecycle's guarded moves hold against another process's changes", async () => {
      const { o, store, corpora: svc } = await open()
      const other = service((await o.another()).store, 2)
      await svc.insertParents([parent('d1', 'cor_a', 'r1', 10), parent('d2', 'cor_a', 'r2', 10)])
      await svc.setExtracted((await svc.document('cor_a', 'd1'))!, extraction(0))
      const units = await svc.runs.waiting('cor_a')
      // Another process failed d2 after this one read it: the run's take is a 409, nothing moves.
      await other.markFailed('d2', 'r2', 'bad', T0 + 1)
      await expect(svc.runs.take(units, T0 + 2)).rejects.toThrow('cannot go from failed to onboarding')
      expect((await svc.document('cor_a', 'd1'))!.status).toBe('pending')
      await svc.runs.take(units.slice(0, 1), T0 + 2)
      // New content arrived for d1 while its batch ran: the batch's settle leaves it waiting.
      await other.replaceContent('d1', { ...parent('d1', 'cor_a', 'r3', 12), now: T0 + 3 })
      await svc.runs.settle({ ready: units.slice(0, 1), failed: [], parents: [] }, T0 + 4)
      expect((await svc.document('cor_a', 'd1'))!.status).toBe('pending')
      // Two requests deleting one file at once (two units of this process: on PostgreSQL, two
      // transactions): one deletes and tells it, the other finds it gone.
      const d = store.table(documents)
      const again = service(store, 3)
      const results = await Promise.allSettled([
        svc.deleteDocument('ws_1', 'cor_a', 'd2', actor),
        again.deleteDocument('ws_1', 'cor_a', 'd2', actor),
      ])
      expect(results.filter((r) => r.status === 'fulfilled').length).toBeGreaterThanOrEqual(1)
      expect(
        await store.db
          .select()
          .from(d)
          .where(and(eq(d.id, 'd2'))),
      ).toEqual([])
      const e = store.table(domainEvents)
      const told = await store.db.select().from(e).where(eq(e.type, 'document.deleted'))
      expect(told).toHaveLength(1)
      await expectCounters(store, 'cor_a', { n_documents: 1, documents_pending: 1, storage_bytes: 12 })
    })

    // Two batches settling sections of one document at once (two replicas). On PostgreSQL each
    // would count the other's section as still onboarding (neither committed) and the last to write
    // would leave the parent so: the second waits for the first's hold on the base's moves and counts
    // after its commit. On SQLite units take turns anyway (one waits for the other's end).
    test.skipIf(engine.name !== 'postgres')(
      "two units settling one document's sections at once take turns and leave it ready, counted once",
      async () => {
        const { store, svc, units } = await twoSections()
        await svc.runs.take(units, T0 + 2)
        const repo = new UnitsRepo(store)
        const [set, counted] = [gate(), gate()]
        const settle = (mine: number, between: () => Promise<void>) =>
          store.unit(async () => {
            await repo.holdMoves('cor_a')
            await repo.settleLeaf(units[mine]!, 'ready', null, T0 + 3)
            await between()
            return repo.rollUpParents(['d1'], T0 + 3)
          })
        // The first has set its section; the second starts and either waits for the hold, or (were
        // there none) sets its own, and then both count before either commits.
        const first = settle(0, async () => {
          set.open()
          await counted.opened
        })
        await set.opened
        const second = settle(1, async () => counted.open())
        let opened = false
        void counted.opened.then(() => {
          opened = true
        })
        expect(await untilWaiting(store, { done: () => opened })).toBe(1)
        counted.open()
        const rolled = await Promise.all([first, second])
        expect(rolled.map((r) => r.map((p) => p.status))).toEqual([['onboarding'], ['ready']])
        expect((await svc.document('cor_a', 'd1'))!.status).toBe('ready')
        await expectCounters(store, 'cor_a', { documents_ready: 1, documents_onboarding: 0 })
      },
    )

    // A run's take, a batch's settle and a stopped run's release each hold the base's moves first:
    // none starts while another unit holds them (none meets another midway, at a parent or the
    // base's counter row, where two could deadlock).
    test.skipIf(engine.name !== 'postgres')(
      'take, settle and release wait for the base’s moves',
      async () => {
        const { store, svc, units } = await twoSections()
        const repo = new UnitsRepo(store)
        const moves = [
          () => svc.runs.take(units, T0 + 2),
          () => svc.runs.settle({ ready: units, failed: [], parents: ['d1'] }, T0 + 3),
          () => svc.runs.release('cor_a', T0 + 4),
        ]
        const order: string[] = []
        for (const [i, move] of moves.entries()) {
          const held = gate()
          const holding = gate()
          const holder = store.unit(async () => {
            await repo.holdMoves('cor_a')
            holding.open()
            await held.opened
            order.push(`held ${i}`)
          })
          await holding.opened
          const moved = move().then(() => order.push(`moved ${i}`))
          expect(await untilWaiting(store)).toBe(1)
          held.open()
          await Promise.all([holder, moved])
        }
        expect(order).toEqual(['held 0', 'moved 0', 'held 1', 'moved 1', 'held 2', 'moved 2'])
        expect((await svc.document('cor_a', 'd1'))!.status).toBe('ready')
      },
    )
  })
}

/** A promise and its resolve, for two units to wait for each other. */
function gate() {
  let open = () => {}
  const opened = new Promise<void>((r) => {
    open = r
  })
  return { open, opened }
}
