import { afterEach, describe, expect, test } from 'bun:test'
import { CorporaService } from '../../../src/features/corpora/corpora.service'
import { Registrar } from '../../../src/features/ingest/ingest.registrar'
import type { Incoming } from '../../../src/features/ingest/ingest.types'
import type { Caps } from '../../../src/features/plans/plans.schemas'
import { ManualClock } from '../../../src/platform/clock/clock'
import { seededRandom } from '../../../src/platform/crypto/random'
import type { Store } from '../../../src/platform/db/store'
import { fail } from '../../../src/platform/errors/errors'
import { Outbox } from '../../../src/platform/events/outbox'
import { JobQueue } from '../../../src/platform/jobs/queue'
import type { ObjectStore } from '../../../src/platform/storage/object-store'
import { engines, type OpenStore, seedTenants } from '../../helpers/stores'

// Registering documents (the Registrar, with corpora's service on the same store) on SQLite and on
// a real PostgreSQL: a batch lands whole in one unit with its run, events and extraction jobs; a
// batch past the plan's documents cap writes nothing; two registrations into one workspace at once
// cannot both take its last documents (the caps' lock; on SQLite the one writer); and a source's
// sync takes the files that fit and lists the rest as its run's errors.

const opened: OpenStore[] = []
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close()
})

const T0 = 1_764_400_000_123

/** The registrar on a store, with a plan capping the workspace's documents at `limit`. */
function registrar(store: Store, limit: number | null, seed: number) {
  const clock = new ManualClock(new Date(T0))
  const random = seededRandom(seed)
  const events = new Outbox(store.db, clock, random, store)
  const queue = new JobQueue(store.db, clock, random, store)
  const corpora = new CorporaService({ store, clock, random, events })
  const plans = {
    capsOf: async () => ({ documents: limit, storage_bytes: null }) as unknown as Caps,
    async ensureRoom(_ws: string, cap: string, used: number, adding = 1) {
      if (cap === 'documents' && limit !== null && adding > 0 && used + adding > limit)
        throw fail('plan_limit_reached', `${used} + ${adding} > ${limit}`)
    },
  }
  // No object is written here (`fresh` is empty): the object store is never reached.
  const objects = {} as ObjectStore
  const r = new Registrar({ store, clock, random, objects, corpora, queue, events, plans })
  return { r, corpora, events, queue }
}

function file(path: string, sha = `sha_${path}`): Incoming {
  return { path, sha256: sha, size: 10, contentType: 'text/plain', rawKey: `ws_1/crp_1/${sha}` }
}

for (const engine of await engines()) {
  describe.skipIf(engine.skip !== null)(`registering documents on ${engine.name}`, () => {
    async function open(limit: number | null) {
      const o = await engine.open()
      opened.push(o)
      await seedTenants(o.store, {
        workspaces: ['ws_1'],
        bases: [
          { id: 'crp_1', workspaceId: 'ws_1' },
          { id: 'crp_2', workspaceId: 'ws_1' },
        ],
        at: T0,
      })
      return { o, store: o.store, ...registrar(o.store, limit, 1) }
    }

    test('a batch lands whole: documents, its run, one event a document and its extraction job', async () => {
      const { r, corpora, events, queue } = await open(null)
      const out = await r.register('ws_1', 'crp_1', {
        source: 'upload',
        items: [file('a.txt'), file('b.txt'), file('c.txt', 'sha_a.txt')],
        fresh: [],
      })
      expect(out.results).toEqual(['created', 'created', 'created'])
      expect(out.docs.map((d) => d.path)).toEqual(['a.txt', 'b.txt', 'c.txt'])
      // The same content is shared, not stored twice.
      expect(out.docs[2]!.raw_key).toBe(out.docs[0]!.raw_key)
      expect(out.run).toMatchObject({ source: 'upload', status: 'running', created: 3, pending: 3 })
      const told = (await events.pending()).filter((e) => e.type === 'document.created')
      expect(told).toHaveLength(3)
      const jobs = await queue.repo.listBySubject('ws_1', 'crp_1')
      expect(jobs.map((j) => (j.payload as { documents: unknown[] }).documents.length)).toEqual([3])
      expect((await corpora.usage('ws_1')).find((b) => b.id === 'crp_1')?.documents).toBe(3)
      // Again: the same files are unchanged, the run finished at once.
      const again = await r.register('ws_1', 'crp_1', { source: 'upload', items: [file('a.txt')], fresh: [] })
      expect(again.results).toEqual(['unchanged'])
      expect(again.run.status).toBe('succeeded')
    })

    test("a batch past the plan's documents cap writes nothing", async () => {
      const { r, corpora, events, queue } = await open(2)
      const refused = r.register('ws_1', 'crp_1', {
        source: 'upload',
        items: [file('a.txt'), file('b.txt'), file('c.txt')],
        fresh: [],
      })
      await expect(refused).rejects.toMatchObject({ code: 'plan_limit_reached' })
      expect(await corpora.parentDocuments('crp_1')).toEqual([])
      expect(await events.pending()).toEqual([])
      expect(await queue.repo.listBySubject('ws_1', 'crp_1')).toEqual([])
    })

    test("two registrations into two bases at once cannot both take the workspace's last documents", async () => {
      const { o, r, corpora } = await open(3)
      // Two bases of the workspace (no row both write), another process on PostgreSQL (its own
      // connections and ids), on SQLite this process's writer.
      const other = registrar(engine.name === 'postgres' ? (await o.another()).store : o.store, 3, 2)
      const batch = (paths: string[]) => ({
        source: 'upload' as const,
        items: paths.map((p) => file(p)),
        fresh: [],
      })
      const outcomes = await Promise.allSettled([
        r.register('ws_1', 'crp_1', batch(['a.txt', 'b.txt'])),
        other.r.register('ws_1', 'crp_2', batch(['c.txt', 'd.txt'])),
      ])
      expect(outcomes.map((x) => x.status).sort()).toEqual(['fulfilled', 'rejected'])
      const refusal = outcomes.find((x) => x.status === 'rejected') as PromiseRejectedResult
      expect(refusal.reason).toMatchObject({ code: 'plan_limit_reached' })
      const held = await corpora.usage('ws_1')
      expect(held.reduce((n, b) => n + b.documents, 0)).toBe(2)
    })

    test("a source's sync takes the files that fit and lists the rest as its run's errors", async () => {
      const { store, r, corpora } = await open(2)
      await store.unit(() =>
        r.repo.openRun({
          id: 'run_s',
          workspaceId: 'ws_1',
          corpusId: 'crp_1',
          source: 'sync',
          sourceId: 'src_1',
          jobId: null,
          now: T0,
        }),
      )
      const seen: (string | null)[][] = []
      const out = await r.register('ws_1', 'crp_1', {
        source: 'import',
        items: [file('a.txt'), file('b.txt'), file('c.txt')],
        fresh: [],
        managedBy: 'source:src_1',
        into: {
          runId: 'run_s',
          unchanged: 1,
          failures: [],
          partial: true,
          within: async (ids) => {
            expect(store.inUnit()).toBe(true)
            seen.push(ids)
          },
        },
      })
      expect(out.results).toEqual(['created', 'created'])
      expect(seen[0]!.map((id) => id !== null)).toEqual([true, true, false])
      expect(out.run).toMatchObject({ created: 2, unchanged: 1, failed: 1, pending: 2, status: 'running' })
      expect(JSON.parse(out.run.errors)).toMatchObject([{ path: 'c.txt', code: 'plan_limit_reached' }])
      expect((await corpora.parentDocuments('crp_1')).map((d) => d.managed_by)).toEqual([
        'source:src_1',
        'source:src_1',
      ])
    })
  })
}
