import { afterEach, describe, expect, test } from 'bun:test'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { migrations } from '../../../migrations/index'
import { PublicationsRepo } from '../../../src/features/engine/engine.publications.repo'
import { Engine } from '../../../src/features/engine/engine.service'
import type { SnapshotPolicy } from '../../../src/features/engine/engine.sync'
import { ManualClock } from '../../../src/platform/clock/clock'
import { cryptoRandom } from '../../../src/platform/crypto/random'
import { openDatabase } from '../../../src/platform/db/db'
import { migrate } from '../../../src/platform/db/migrate'
import type { Store } from '../../../src/platform/db/store'
import { engines, type OpenStore } from '../../helpers/stores'
import { docs, memoryStore, onboardDoc, sectionInput } from '../engine/fixture'

// One passage index for every replica (engine.sync.ts), on SQLite and on a real PostgreSQL: two
// engines, each with an index file of its own (a replica's data dir), share the features' store (two
// stores of one database on PostgreSQL, as two processes have) and one object store. What one writes
// is published before the write returns, and the other answers from it on its next question: the same
// answers and sources, a deleted document cited by neither, writes of both kept.

const opened: OpenStore[] = []
const dirs: string[] = []
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close()
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

const objects = () => memoryStore()

function replica(store: Store, shared: ReturnType<typeof memoryStore>, snapshots?: SnapshotPolicy): Engine {
  const db = openDatabase(':memory:')
  migrate(db, migrations)
  const dir = mkdtempSync(join(tmpdir(), 'engram-replica-'))
  dirs.push(dir)
  const clock = new ManualClock(new Date(1_764_400_000_000))
  return new Engine({
    db,
    store: shared,
    cacheBytes: 64 * 1024 * 1024,
    now: () => 0,
    shared: { store, objects: shared, clock, random: cryptoRandom, dir, snapshots },
  })
}

const input = sectionInput

const QUESTIONS = ['When was Tesla born?', 'Who discovered oxygen?', 'What river is Warsaw on?']

for (const engine of await engines()) {
  describe.skipIf(engine.skip !== null)(`one index for every replica on ${engine.name}`, () => {
    async function two(snapshots?: SnapshotPolicy) {
      const o = await engine.open()
      opened.push(o)
      const other = engine.name === 'postgres' ? (await o.another()).store : o.store
      const shared = objects()
      return {
        store: o.store,
        shared,
        a: replica(o.store, shared, snapshots),
        b: replica(other, shared, snapshots),
      }
    }

    test('a base onboarded on one replica answers the same, with the same sources, on the other', async () => {
      const { a, b, store, shared } = await two()
      for (const d of docs) await onboardDoc(a, 'cor_1', d)
      const published = await new PublicationsRepo(store).current('cor_1')
      // Each document's index write and its cartridge's build, one generation each: the first a whole
      // snapshot, the others changes on top of it.
      expect(published!.generation).toBe(docs.length * 2)
      expect(published!.snapshotGeneration).toBe(1)
      expect(published!.objectKey.startsWith('ws_1/index/cor_1/1-')).toBe(true)
      const files = [...shared.objects.keys()].filter((k) => k.includes('/index/'))
      expect(files.length).toBe(docs.length * 2)
      expect(files.filter((k) => k.endsWith('.change.sqlite')).length).toBe(docs.length * 2 - 1)
      for (const strategy of ['rag', 'cart'] as const)
        for (const question of QUESTIONS) {
          const there = await a.ask('cor_1', { question, k: 3, strategy })
          const here = await b.ask('cor_1', { question, k: 3, strategy })
          expect(here.answer).toBe(there.answer)
          expect(here.sources).toEqual(there.sources)
          expect(here.sources.length).toBeGreaterThan(0)
        }
    })

    test('a document deleted through one replica is cited by neither on the next question', async () => {
      const { a, b, shared } = await two()
      for (const d of docs) await onboardDoc(a, 'cor_1', d)
      const before = await b.ask('cor_1', { question: 'Who discovered oxygen?', k: 3, strategy: 'cart' })
      expect(before.sources[0]!.documentId).toBe('doc_oxygen')
      await b.removeSections('cor_1', 'ws_1', ['sec_doc_oxygen'])
      // Published whole: no file in the object store holds the deleted document's text any more.
      const files = [...shared.objects.entries()].filter(([k]) => k.includes('/index/'))
      expect(files.length).toBe(1)
      expect(new TextDecoder('latin1').decode(files[0]![1])).not.toContain('Scheele')
      for (const r of [a, b])
        for (const strategy of ['rag', 'cart'] as const) {
          const after = await r.ask('cor_1', { question: 'Who discovered oxygen?', k: 3, strategy })
          expect(after.sources.map((s) => s.documentId)).not.toContain('doc_oxygen')
          expect(after.answer).not.toContain('Scheele')
        }
    })

    test("both replicas' writes at once are kept, one after the other under the base's lease", async () => {
      const { a, b, store } = await two()
      await Promise.all([onboardDoc(a, 'cor_1', docs[0]!), onboardDoc(b, 'cor_1', docs[1]!)])
      await onboardDoc(a, 'cor_1', docs[2]!)
      expect((await new PublicationsRepo(store).current('cor_1'))!.generation).toBe(6)
      for (const r of [a, b]) {
        await r.syncBase('cor_1')
        expect(r.sectionsOf('cor_1').map((s) => s.sectionId)).toEqual([
          'sec_doc_oxygen',
          'sec_doc_tesla',
          'sec_doc_warsaw',
        ])
      }
    })

    // Each document written again, changed, as generation after generation.
    const edition = (d: (typeof docs)[number], i: number) => ({
      ...input(d),
      text: `${d.text}\n\nEdition ${i}.`,
    })

    test('a whole snapshot once the changes since the last one add up to its size; the changes it covers and their files go', async () => {
      const { a, b, store, shared } = await two({ maxChanges: 1000, floorBytes: 0 })
      const repo = new PublicationsRepo(store)
      await onboardDoc(a, 'cor_1', docs[0]!)
      await b.syncBase('cor_1')
      const kinds: string[] = []
      for (let i = 0; i < 12; i++) {
        const head = (await repo.current('cor_1'))!
        const since = await repo.changesAfter('cor_1', head.snapshotGeneration)
        const due = since.reduce((n, c) => n + c.bytes, 0) >= head.bytes
        await a.indexSections([edition(docs[i % docs.length]!, i)])
        const now = (await repo.current('cor_1'))!
        expect(now.generation).toBe(head.generation + 1)
        // Due: this generation is the snapshot and no change is left; else a change on the last snapshot.
        expect(now.snapshotGeneration).toBe(due ? now.generation : head.snapshotGeneration)
        expect((await repo.changesAfter('cor_1', 0)).length).toBe(due ? 0 : since.length + 1)
        kinds.push(due ? 'snapshot' : 'change')
      }
      // Both happened: the rule was put to the test.
      expect(kinds).toContain('snapshot')
      expect(kinds).toContain('change')
      const head = (await repo.current('cor_1'))!
      const changes = await repo.changesAfter('cor_1', 0)
      const files = [...shared.objects.keys()].filter((k) => k.includes('/index/'))
      expect(files.sort()).toEqual([head.objectKey, ...changes.map((c) => c.objectKey)].sort())
      // A replica at generation 2 (before the snapshot) takes the snapshot and the changes after it.
      const q = { question: 'What river is Warsaw on?', k: 3, strategy: 'rag' as const }
      expect((await b.ask('cor_1', q)).sources).toEqual((await a.ask('cor_1', q)).sources)
      expect(b.sectionsOf('cor_1').length).toBe(3)
    })

    test('a whole snapshot once there are as many changes as the policy allows, whatever their size', async () => {
      const { a, b, store } = await two({ maxChanges: 4, floorBytes: 2 ** 40 })
      const repo = new PublicationsRepo(store)
      const snapshots: number[] = []
      for (let i = 0; i < 12; i++) {
        await a.indexSections([edition(docs[i % docs.length]!, i)])
        const head = (await repo.current('cor_1'))!
        if (head.snapshotGeneration === head.generation) snapshots.push(head.generation)
      }
      // The first, then after every four changes.
      expect(snapshots).toEqual([1, 6, 11])
      const q = { question: 'When was Tesla born?', k: 3, strategy: 'cart' as const }
      expect((await b.ask('cor_1', q)).sources).toEqual((await a.ask('cor_1', q)).sources)
    })

    test.skipIf(engine.name !== 'postgres')(
      'on PostgreSQL a replica holding the base takes a new generation when told, before any question',
      async () => {
        const { a, b, store } = await two()
        await onboardDoc(a, 'cor_1', docs[0]!)
        await b.syncBase('cor_1')
        await onboardDoc(a, 'cor_1', docs[1]!)
        const head = (await new PublicationsRepo(store).current('cor_1'))!.generation
        // Waits for the notice's effect with a deadline; nothing asks b meanwhile.
        const deadline = Date.now() + 3_000
        while (b.shared!.at('cor_1') !== head && Date.now() < deadline) await Bun.sleep(10)
        expect(b.shared!.at('cor_1')).toBe(head)
        expect(b.sectionsOf('cor_1').length).toBe(2)
      },
    )

    test('a write that changes nothing publishes nothing', async () => {
      const { a, store } = await two()
      await onboardDoc(a, 'cor_1', docs[0]!)
      const repo = new PublicationsRepo(store)
      const before = (await repo.current('cor_1'))!
      await a.buildDeferred('cor_1', async () => null)
      await a.removeSections('cor_1', 'ws_1', ['sec_no_such_section'])
      expect(await repo.current('cor_1')).toEqual(before)
    })

    test('a publication from a generation that moved on is refused, and nothing written', async () => {
      const { a, store } = await two()
      await onboardDoc(a, 'cor_1', docs[0]!)
      const repo = new PublicationsRepo(store)
      const now = (await repo.current('cor_1'))!
      const late = { ...now, objectKey: 'ws_1/index/cor_1/late.sqlite', owner: 'zombie' }
      const stale = { ...now, generation: now.generation - 1 }
      const changes = await repo.changesAfter('cor_1', 0)
      expect(await repo.publishChange(stale, late)).toBe(false)
      expect(await repo.publishSnapshot(stale, late)).toBeNull()
      expect(await repo.publishSnapshot(null, late)).toBeNull()
      expect(await repo.current('cor_1')).toEqual(now)
      expect(await repo.changesAfter('cor_1', 0)).toEqual(changes)
      expect(await repo.publishChange(now, late)).toBe(true)
      expect((await repo.current('cor_1'))!.generation).toBe(now.generation + 1)
      expect((await repo.changesAfter('cor_1', 0)).length).toBe(changes.length + 1)
    })

    test('a deleted base leaves no publication and no file, and a replica that held it answers 404', async () => {
      const { a, b, store, shared } = await two()
      await onboardDoc(a, 'cor_1', docs[0]!)
      await b.syncBase('cor_1')
      await a.removeBase('cor_1')
      // b's memo of the base's row may not have heard the delete yet: its index tells it.
      const asked = b.ask('cor_1', { question: 'When was Tesla born?', k: 3 })
      await expect(asked).rejects.toMatchObject({ status: 404, code: 'not_found' })
      expect(await new PublicationsRepo(store).current('cor_1')).toBeNull()
      expect([...shared.objects.keys()].filter((k) => k.includes('/index/'))).toEqual([])
      // The files written and read on the way are gone from the replica's folder.
      for (const d of dirs) expect(readdirSync(d)).toEqual([])
    })
  })
}
