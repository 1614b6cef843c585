import { afterEach, describe, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { ManualClock } from '../../../src/platform/clock/clock'
import { rawRows } from '../../../src/platform/db/raw'
import type { Store } from '../../../src/platform/db/store'
import { type Claimed, OutboxRepo } from '../../../src/platform/events/outbox.repo'
import { engines, type OpenStore, seedTenants } from '../../helpers/stores'

// A claim takes a workspace's events in runs (outbox.repo.ts): its head and the due, free events
// after it, leased together, and one unit settles the run. On both engines, with a manual clock.

const opened: OpenStore[] = []
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close()
})

const LEASE = 60_000

/** Writes events of these workspaces, seq 1, 2, ... in order, all due. */
async function seed(s: Store, now: number, workspaces: string[]): Promise<void> {
  await seedTenants(s, { workspaces: [...new Set(workspaces)], bases: [], at: 0 })
  await s.unit(async () => {
    for (const [i, w] of workspaces.entries()) {
      await rawRows(
        s,
        sql`INSERT INTO domain_events (seq, id, workspace_id, type, payload, occurred_at, run_at)
            VALUES (${i + 1}, ${`evt_${i + 1}`}, ${w}, 'key.revoked', '{}', ${now}, ${now})`,
      )
    }
  })
}

/** Each event's seq with its lease owner, whether delivered, attempts, due time and error. */
async function rows(s: Store) {
  const all = await rawRows(
    s,
    sql`SELECT seq, lease_owner, delivered_at, attempts, run_at, last_error FROM domain_events ORDER BY seq`,
  )
  return all.map((r) => ({
    seq: Number(r.seq),
    owner: r.lease_owner as string | null,
    delivered: r.delivered_at !== null,
    attempts: Number(r.attempts),
    runAt: Number(r.run_at),
    error: r.last_error as string | null,
  }))
}

const seqs = (runs: Claimed[][]) => runs.map((run) => run.map((c) => c.seq))

for (const engine of await engines()) {
  describe.skipIf(engine.skip !== null)(`the outbox's runs on ${engine.name}`, () => {
    async function open() {
      const o = await engine.open()
      opened.push(o)
      const clock = new ManualClock()
      return { s: o.store, clock, repo: new OutboxRepo(o.store, clock), now: clock.now().getTime() }
    }

    test("a claim leases each workspace's head with the events after it, up to the run's length", async () => {
      const { s, repo, now } = await open()
      await seed(s, now, ['ws_a', 'ws_b', 'ws_a', 'ws_a', 'ws_b', 'ws_a', 'ws_a'])
      const runs = await repo.claimRuns('p1', LEASE, 4, new Set(), 3)
      expect(seqs(runs)).toEqual([
        [1, 3, 4],
        [2, 5],
      ])
      expect(runs[0]![1]!.event).toMatchObject({ id: 'evt_3', workspaceId: 'ws_a', type: 'key.revoked' })
      expect((await rows(s)).map((r) => r.owner)).toEqual(['p1', 'p1', 'p1', 'p1', 'p1', null, null])
      // Another claimer finds both heads leased and takes nothing, not even ws_a's later events.
      expect(await repo.claimRuns('p2', LEASE, 4, new Set(), 3)).toEqual([])
      await repo.settleRun(runs[0]!, 'p1', 3, null)
      expect(seqs(await repo.claimRuns('p2', LEASE, 4, new Set(), 3))).toEqual([[6, 7]])
      expect((await rows(s)).map((r) => [r.seq, r.owner, r.delivered])).toEqual([
        [1, null, true],
        [2, 'p1', false],
        [3, null, true],
        [4, null, true],
        [5, 'p1', false],
        [6, 'p2', false],
        [7, 'p2', false],
      ])
    })

    test('a run ends before an event another claim still holds', async () => {
      const { s, repo, now } = await open()
      await seed(s, now, ['ws_a', 'ws_a', 'ws_a', 'ws_a'])
      // A lease left on the third event (a claim that gave its run up unsettled).
      await s.unit(() =>
        rawRows(s, sql`UPDATE domain_events SET lease_owner = 'p0', lease_until = ${now + 1} WHERE seq = 3`),
      )
      expect(seqs(await repo.claimRuns('p1', LEASE, 4, new Set(), 10))).toEqual([[1, 2]])
      expect((await rows(s)).map((r) => r.owner)).toEqual(['p1', 'p1', 'p0', null])
    })

    test('a run that failed part way: those before are delivered, the failed one waits out its backoff, the rest wait for it', async () => {
      const { s, repo, clock, now } = await open()
      await seed(s, now, ['ws_a', 'ws_a', 'ws_a', 'ws_a', 'ws_b'])
      const [run, other] = await repo.claimRuns('p1', LEASE, 4, new Set(), 10)
      await repo.settleRun(run!, 'p1', 1, { error: 'hook: down', delayMs: 1000 })
      expect((await rows(s)).slice(0, 4)).toEqual([
        { seq: 1, owner: null, delivered: true, attempts: 0, runAt: now, error: null },
        { seq: 2, owner: null, delivered: false, attempts: 1, runAt: now + 1000, error: 'hook: down' },
        { seq: 3, owner: null, delivered: false, attempts: 0, runAt: now, error: null },
        { seq: 4, owner: null, delivered: false, attempts: 0, runAt: now, error: null },
      ])
      // The other workspace's run is not touched; ws_a waits whole for its head's backoff.
      expect((await rows(s))[4]!.owner).toBe('p1')
      await repo.settleRun(other!, 'p1', 1, null)
      expect(await repo.claimRuns('p1', LEASE, 4, new Set(), 10)).toEqual([])
      clock.advance(1000)
      const [again] = await repo.claimRuns('p1', LEASE, 4, new Set(), 10)
      expect(again!.map((c) => [c.seq, c.attempts])).toEqual([
        [2, 1],
        [3, 0],
        [4, 0],
      ])
      // A run settled with nothing delivered and no failure gives every event back as it was.
      await repo.settleRun(again!, 'p1', 0, null)
      expect((await rows(s)).slice(1, 4).map((r) => [r.owner, r.delivered, r.attempts])).toEqual([
        [null, false, 1],
        [null, false, 0],
        [null, false, 0],
      ])
    })

    test("a run's delivery records are read at once; a settle by another owner changes nothing", async () => {
      const { s, repo, now } = await open()
      await seed(s, now, ['ws_a', 'ws_a', 'ws_a'])
      const [run] = await repo.claimRuns('p1', LEASE, 4, new Set(), 10)
      await repo.recordDelivery('evt_1', 'audit')
      await repo.recordDelivery('evt_1', 'webhooks')
      await repo.recordDelivery('evt_3', 'audit')
      const taken = await repo.deliveredIn(run!)
      expect([...taken.entries()].map(([id, of]) => [id, [...of].sort()]).sort()).toEqual([
        ['evt_1', ['audit', 'webhooks']],
        ['evt_3', ['audit']],
      ])
      await repo.settleRun(run!, 'p2', 3, null)
      expect((await rows(s)).map((r) => [r.owner, r.delivered])).toEqual([
        ['p1', false],
        ['p1', false],
        ['p1', false],
      ])
    })
  })
}
