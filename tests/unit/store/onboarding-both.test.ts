import { afterEach, describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { CorporaService } from '../../../src/features/corpora/corpora.service'
import { documents } from '../../../src/features/corpora/corpora.tables'
import type { SectionOnboarder } from '../../../src/features/onboarding/onboarding.jobs'
import { OnboardingService } from '../../../src/features/onboarding/onboarding.service'
import { ManualClock } from '../../../src/platform/clock/clock'
import { seededRandom } from '../../../src/platform/crypto/random'
import type { Store } from '../../../src/platform/db/store'
import { domainEvents } from '../../../src/platform/events/events.tables'
import { Outbox } from '../../../src/platform/events/outbox'
import { JobQueue } from '../../../src/platform/jobs/queue'
import { memoryLogger } from '../../../src/platform/log/log'
import type { ObjectStore } from '../../../src/platform/storage/object-store'
import { engines, type OpenStore, seedTenants } from '../../helpers/stores'

// Onboarding's runs on SQLite and on a real PostgreSQL: starting a run writes the run, its batches,
// its documents' and base's status and `onboarding.started` in one unit; two starts at once start
// one run (the other is a 409); a cancel ends the run once, with its documents back to waiting and
// `onboarding.cancelled` told once, however many cancels race.

const opened: OpenStore[] = []
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close()
})

const T0 = 1_764_400_000_123

/** The engine as onboarding sees it, doing nothing: no batch runs in these tests. */
const idleEngine = {
  builds: { whenDamaged: () => {}, left: () => 0, mergesHeld: () => false, bases: () => [] },
  warmUp: () => {},
  warmBase: async () => {},
  embeddingModel: null,
  embedsAfterOnboarding: false,
  basesWithoutVectors: () => [],
} as unknown as SectionOnboarder

function rig(store: Store, seed: number) {
  const clock = new ManualClock(new Date(T0))
  const random = seededRandom(seed)
  const events = new Outbox(store.db, clock, random, store)
  const corpora = new CorporaService({ store, clock, random, events })
  const queue = new JobQueue(store.db, clock, random, store)
  const objects = { assertReadable: async () => {}, getText: async () => null } as unknown as ObjectStore
  const onboarding = new OnboardingService({
    store,
    clock,
    log: memoryLogger(),
    queue,
    events,
    objects,
    corpora,
    engine: idleEngine,
    autoTiming: { delayMs: 1000, maxWaitMs: 10_000 },
  })
  return { corpora, queue, onboarding }
}

async function told(store: Store, type: string): Promise<number> {
  const e = store.table(domainEvents)
  return (await store.db.select().from(e).where(eq(e.type, type))).length
}

async function statuses(store: Store): Promise<string[]> {
  const d = store.table(documents)
  return (await store.db.select().from(d).where(eq(d.corpusId, 'cor_a')).orderBy(d.id)).map((r) => r.status)
}

for (const engine of await engines()) {
  describe.skipIf(engine.skip !== null)(`onboarding's runs on ${engine.name}`, () => {
    async function open() {
      const o = await engine.open()
      opened.push(o)
      const store = o.store
      await seedTenants(store, {
        workspaces: ['ws_1'],
        bases: [{ id: 'cor_a', workspaceId: 'ws_1' }],
        at: T0,
      })
      const a = rig(store, 1)
      for (const id of ['d1', 'd2']) {
        await a.corpora.insertParents([
          {
            id,
            workspaceId: 'ws_1',
            corpusId: 'cor_a',
            path: `${id}.txt`,
            size: 5,
            contentType: 'text/plain',
            sha256: `sha_${id}`,
            source: 'upload',
            managedBy: null,
            rawKey: `raw/${id}`,
            now: T0,
          },
        ])
      }
      return { store, a, b: rig(store, 2) }
    }

    test('two starts at once start one run, written with its batches, statuses and event in one unit', async () => {
      const { store, a, b } = await open()
      const started = await Promise.allSettled([
        a.onboarding.train('ws_1', 'cor_a', false),
        b.onboarding.train('ws_1', 'cor_a', false),
      ])
      const ok = started.filter((s) => s.status === 'fulfilled')
      expect(ok).toHaveLength(1)
      const refused = started.find((s) => s.status === 'rejected') as PromiseRejectedResult
      expect((refused.reason as { code?: string }).code).toBe('training_in_progress')
      const run = (ok[0] as PromiseFulfilledResult<{ id: string }>).value
      const jobs = await a.queue.repo.listBySubject('ws_1', 'cor_a')
      expect(jobs.map((j) => [j.kind, j.status]).sort()).toEqual([
        ['train', 'running'],
        ['train_batch', 'pending'],
      ])
      expect(jobs.find((j) => j.kind === 'train')!.id).toBe(run.id)
      expect(await statuses(store)).toEqual(['onboarding', 'onboarding'])
      expect((await a.corpora.get('ws_1', 'cor_a')).status).toBe('training')
      expect(await told(store, 'onboarding.started')).toBe(1)
      expect((await a.onboarding.inFlight('ws_1', 'cor_a'))?.id).toBe(run.id)
    })

    test('cancels racing end the run once: documents back to waiting, the base new, told once', async () => {
      const { store, a, b } = await open()
      const run = await a.onboarding.train('ws_1', 'cor_a', false)
      const ended = await Promise.allSettled([
        a.onboarding.cancel('ws_1', 'cor_a'),
        b.onboarding.cancel('ws_1', 'cor_a'),
      ])
      expect(ended.some((e) => e.status === 'fulfilled')).toBe(true)
      expect((await a.queue.repo.get(run.id))?.status).toBe('canceled')
      expect(await statuses(store)).toEqual(['pending', 'pending'])
      expect((await a.corpora.get('ws_1', 'cor_a')).status).toBe('new')
      expect(await told(store, 'onboarding.cancelled')).toBe(1)
      expect(await a.onboarding.inFlight('ws_1', 'cor_a')).toBeNull()
      // A run starts again over the same documents.
      await a.onboarding.train('ws_1', 'cor_a', false)
      expect(await statuses(store)).toEqual(['onboarding', 'onboarding'])
    })

    test('a start that fails writes nothing: no run, no batch, no status, no event', async () => {
      const { store, a } = await open()
      // A failed document may not be taken: the run's unit rolls back whole.
      const units = await a.corpora.runs.waiting('cor_a')
      await a.corpora.markFailed('d2', 'raw/d2', 'bad', T0 + 1)
      const begin = (a.onboarding as unknown as { begin: (...x: unknown[]) => Promise<unknown> }).begin.bind(
        a.onboarding,
      )
      await expect(begin('ws_1', 'cor_a', units, { force: false, auto: false })).rejects.toThrow('failed')
      expect(await a.queue.repo.listBySubject('ws_1', 'cor_a')).toEqual([])
      expect(await statuses(store)).toEqual(['pending', 'failed'])
      expect((await a.corpora.get('ws_1', 'cor_a')).status).toBe('new')
      expect(await told(store, 'onboarding.started')).toBe(0)
    })
  })
}
