import { afterEach, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, utimesSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CorporaService } from '../../../src/features/corpora/corpora.service'
import { Registrar } from '../../../src/features/ingest/ingest.registrar'
import {
  COMMIT_LEASE_MS,
  closeInterruptedCommits,
  holdCommit,
} from '../../../src/features/ingest/lib/commit-leases'
import { SWEEP_LEASE, sweepOrphans } from '../../../src/features/ingest/lib/sweep'
import type { Caps } from '../../../src/features/plans/plans.schemas'
import { ManualClock } from '../../../src/platform/clock/clock'
import { loadConfig } from '../../../src/platform/config/config.load'
import { seededRandom } from '../../../src/platform/crypto/random'
import type { Store } from '../../../src/platform/db/store'
import { Outbox } from '../../../src/platform/events/outbox'
import { JobQueue } from '../../../src/platform/jobs/queue'
import { LeaseLostError } from '../../../src/platform/leases/held-lease'
import { memoryLogger } from '../../../src/platform/log/log'
import { LocalObjectStore } from '../../../src/platform/storage/local-store'
import { engines, type OpenStore, seedTenants } from '../../helpers/stores'

// The orphan sweep and the close of interrupted push commits with several processes on one database
// and one object store, on SQLite and on a real PostgreSQL: an object another process wrote within
// the grace survives (not in this process's in-flight set), an old unreferenced one goes; of two
// processes starting at once one sweeps; a push commit whose lease another process holds is spared,
// ended once its lease lapses, and its old holder then finds its lease lost.

const opened: OpenStore[] = []
const dirs: string[] = []
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close()
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

const T0 = 1_764_400_000_000
const MINUTE = 60_000
/** The default grace, `ingest.orphan_grace_seconds`. */
const GRACE_MS = 3_600_000

/** One process: its registrar and what the sweep works with, on `store`, sharing `objects` and `clock`. */
function processOn(store: Store, objects: LocalObjectStore, clock: ManualClock, seed: number) {
  const random = seededRandom(seed)
  const events = new Outbox(store.db, clock, random, store)
  const queue = new JobQueue(store.db, clock, random, store)
  const corpora = new CorporaService({ store, clock, random, events })
  const plans = {
    capsOf: async () => ({ documents: null, storage_bytes: null }) as unknown as Caps,
    ensureRoom: async () => {},
  }
  const registrar = new Registrar({ store, clock, random, objects, corpora, queue, events, plans })
  const config = loadConfig({ env: {}, readFile: () => null }).ingest
  return { store, clock, config, objects, corpora, queue, log: memoryLogger(), registrar }
}

for (const engine of await engines()) {
  describe.skipIf(engine.skip !== null)(`the orphan sweep with several processes on ${engine.name}`, () => {
    async function open() {
      const o = await engine.open()
      opened.push(o)
      await seedTenants(o.store, {
        workspaces: ['ws_1'],
        bases: [{ id: 'crp_1', workspaceId: 'ws_1' }],
        at: T0,
      })
      const root = mkdtempSync(join(tmpdir(), 'engram-sweep-'))
      dirs.push(root)
      const objects = new LocalObjectStore({ root })
      const clock = new ManualClock(new Date(T0))
      // On SQLite one process writes (two connections of one event loop would wait on each other).
      const other = engine.name === 'postgres' ? (await o.another()).store : o.store
      const a = processOn(o.store, objects, clock, 1)
      const b = processOn(other, objects, clock, 2)
      /** Writes `key`, dated `age` ms before the clock's now (the file's mtime, as the store lists it). */
      const put = async (key: string, age: number) => {
        await objects.put(key, key)
        const at = new Date(clock.now().getTime() - age)
        utimesSync(join(root, key), at, at)
      }
      const keys = async () => {
        const out: string[] = []
        for await (const e of objects.list('')) out.push(e.key)
        return out
      }
      return { a, b, clock, put, keys }
    }

    test('an object another process wrote within the grace survives; old unreferenced ones go', async () => {
      const { a, clock, put, keys } = await open()
      const blob = (name: string) => `ws_1/corpora/crp_1/blobs/${name}`
      // Another replica's upload in flight: not in this process's in-flight set, written 5 minutes ago.
      await put(blob('blob_elsewhere'), 5 * MINUTE)
      // Leftovers of a crash two hours ago, of this base and of a base that is gone.
      await put(blob('blob_crashed'), 2 * 3_600_000)
      await put('ws_1/corpora/crp_gone/blobs/blob_x', 2 * 3_600_000)
      // An old object a document row uses, and one outside the corpora area.
      await put(blob('blob_used'), 2 * 3_600_000)
      await put('ws_1/carts/c.cart', 2 * 3_600_000)
      await a.registrar.register('ws_1', 'crp_1', {
        source: 'upload',
        items: [
          { path: 'a.txt', sha256: 'sha_a', size: 10, contentType: 'text/plain', rawKey: blob('blob_used') },
        ],
        fresh: [],
      })
      expect(await sweepOrphans(a)).toEqual({ removed: 2, uploadsExpired: 0, commitsHeldUntil: null })
      expect(await keys()).toEqual(['ws_1/carts/c.cart', blob('blob_elsewhere'), blob('blob_used')])
      // An hour on, nothing took it: it was a crash's leftover after all, and goes.
      clock.advance(GRACE_MS - 5 * MINUTE)
      expect((await sweepOrphans(a)).removed).toBe(1)
      expect(await keys()).toEqual(['ws_1/carts/c.cart', blob('blob_used')])
    })

    test('of two processes starting at once one sweeps; the lease is given up after', async () => {
      const { a, b, put, keys } = await open()
      for (let i = 0; i < 5; i++) await put(`ws_1/corpora/crp_1/blobs/blob_${i}`, 2 * 3_600_000)
      const [ra, rb] = await Promise.all([sweepOrphans(a), sweepOrphans(b)])
      const results = [ra, rb].map((r) => (r.skipped ? 'skipped' : r.removed))
      expect(results.sort()).toEqual([5, 'skipped'])
      expect(await keys()).toEqual([])
      expect(await a.registrar.leases.holder(SWEEP_LEASE)).toBeNull()
      // A process starting later sweeps (there is nothing left).
      expect(await sweepOrphans(b)).toEqual({ removed: 0, uploadsExpired: 0, commitsHeldUntil: null })
    })

    test('a push commit another process holds is spared, ended once its lease lapses, and its holder stops', async () => {
      const { a, b, clock } = await open()
      const run = (id: string) => ({
        id,
        workspaceId: 'ws_1',
        corpusId: 'crp_1',
        source: 'push' as const,
        sourceId: null,
        jobId: null,
        now: T0,
      })
      // b registers run_b (its lease held before the run opens); run_dead was left open by a crash.
      const held = await holdCommit(b, 'run_b')
      await b.store.unit(() => b.registrar.repo.openRun(run('run_b')))
      await a.store.unit(() => a.registrar.repo.openRun(run('run_dead')))
      const status = async (id: string) => (await a.registrar.repo.run('crp_1', id))?.status
      expect(await closeInterruptedCommits(a)).toEqual({ closed: 1, heldUntil: T0 + COMMIT_LEASE_MS })
      expect([await status('run_dead'), await status('run_b')]).toEqual(['failed', 'running'])
      // b renews before its next batch (a third of the lease gone): still spared past the first lease.
      clock.advance(COMMIT_LEASE_MS / 2)
      await held.keep()
      clock.advance(COMMIT_LEASE_MS / 2)
      expect(await closeInterruptedCommits(a)).toEqual({ closed: 0, heldUntil: T0 + 1.5 * COMMIT_LEASE_MS })
      // b stops renewing (paused, or gone); once the lease lapses the commit is ended, once.
      clock.advance(COMMIT_LEASE_MS / 2)
      expect(await closeInterruptedCommits(a)).toEqual({ closed: 1, heldUntil: null })
      expect(await closeInterruptedCommits(a)).toEqual({ closed: 0, heldUntil: null })
      expect(await status('run_b')).toBe('failed')
      // b wakes up: its next batch finds the lease lost and does not register into the ended run.
      expect(await held.keep().catch((e) => e)).toBeInstanceOf(LeaseLostError)
    })
  })
}
