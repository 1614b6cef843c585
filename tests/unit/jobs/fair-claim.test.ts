import { afterEach, describe, expect, test } from 'bun:test'
import { migrations } from '../../../migrations/index'
import { ManualClock } from '../../../src/platform/clock/clock'
import { seededRandom } from '../../../src/platform/crypto/random'
import { type Db, openDatabase } from '../../../src/platform/db/db'
import { migrate } from '../../../src/platform/db/migrate'
import { ClaimReads } from '../../../src/platform/jobs/claim'
import type { ClaimPolicy } from '../../../src/platform/jobs/fair-claim'
import { JobQueue } from '../../../src/platform/jobs/queue'
import { type JobHandler, Scheduler } from '../../../src/platform/jobs/scheduler'
import { memoryLogger } from '../../../src/platform/log/log'

// The claim that keeps one workspace from holding every worker slot, and long-running work from
// taking the slots of short work (issue 32): first the queue's claim under a policy, then the
// scheduler that applies it, stops jobs asked to stop and holds them to their time budget.

let db: Db
afterEach(() => db.$client.close())

function queue() {
  db = openDatabase(':memory:')
  migrate(db, migrations)
  const clock = new ManualClock('2026-05-01T00:00:00Z')
  return { q: new JobQueue(db, clock, seededRandom(5)), clock }
}

const policy = (p: Partial<ClaimPolicy> = {}): ClaimPolicy => ({
  bulk: ['sync'],
  bulkSlots: 64,
  perWorkspace: 64,
  ...p,
})

/** Enqueues `n` jobs of a kind for a workspace, one clock tick apart; returns their ids. */
async function jobs(
  q: JobQueue,
  clock: ManualClock,
  workspaceId: string,
  kind: string,
  n = 1,
): Promise<string[]> {
  const ids: string[] = []
  for (let i = 0; i < n; i++) {
    clock.advance(1)
    ids.push((await q.store.unit(() => q.add({ workspaceId, kind }))).id)
  }
  return ids
}

describe('the fair claim', () => {
  test("another workspace's newer job is claimed before a busy workspace's second", async () => {
    const { q, clock } = queue()
    const t = await jobs(q, clock, 'ws_t', 'extract', 5)
    // Neither a job not yet due nor a kind not asked for is a candidate.
    await q.store.unit(() =>
      q.add({ workspaceId: 'ws_c', kind: 'extract', runAt: clock.now().getTime() + 60_000 }),
    )
    await jobs(q, clock, 'ws_d', 'other')
    const [b] = await jobs(q, clock, 'ws_b', 'extract')
    // Oldest first would take three of T's; round robin takes T's oldest, then B's, then T's next.
    expect((await q.leaseRepo.claim(['extract'], 'w1', 60_000, 3, policy())).map((j) => j.id)).toEqual([
      t[0]!,
      b!,
      t[1]!,
    ])
  })

  test("a workspace at its cap gets no slot, whatever its jobs' age; the cap counts what the owner runs", async () => {
    const { q, clock } = queue()
    const t = await jobs(q, clock, 'ws_t', 'extract', 4)
    const [b] = await jobs(q, clock, 'ws_b', 'extract')
    const capped = policy({ perWorkspace: 2 })
    expect((await q.leaseRepo.claim(['extract'], 'w1', 60_000, 2, capped)).map((j) => j.id)).toEqual([
      t[0]!,
      b!,
    ])
    expect((await q.leaseRepo.claim(['extract'], 'w1', 60_000, 3, capped)).map((j) => j.id)).toEqual([t[1]!])
    expect(await q.leaseRepo.claim(['extract'], 'w1', 60_000, 3, capped)).toEqual([])
    // Another owner's slots are its own: T's jobs running at w1 do not count against w2.
    expect((await q.leaseRepo.claim(['extract'], 'w2', 60_000, 3, capped)).map((j) => j.id)).toEqual([
      t[2]!,
      t[3]!,
    ])
  })

  test('bulk jobs never take the slots kept for interactive work, even when they are older', async () => {
    const { q, clock } = queue()
    const syncs = await jobs(q, clock, 'ws_t', 'sync', 3)
    const [upload] = await jobs(q, clock, 'ws_b', 'extract')
    const p = policy({ bulkSlots: 1 })
    expect((await q.leaseRepo.claim(['sync', 'extract'], 'w1', 60_000, 2, p)).map((j) => j.id)).toEqual([
      syncs[0]!,
      upload!,
    ])
    const [later] = await jobs(q, clock, 'ws_b', 'extract')
    // One slot free: the older syncs wait, the bulk slot being taken; the upload runs.
    expect((await q.leaseRepo.claim(['sync', 'extract'], 'w1', 60_000, 1, p)).map((j) => j.id)).toEqual([
      later!,
    ])
  })

  test('a workspace whose oldest job is a blocked sync still gets its own interactive job', async () => {
    const { q, clock } = queue()
    const [first] = await jobs(q, clock, 'ws_t', 'sync')
    const [second] = await jobs(q, clock, 'ws_t', 'sync')
    const [extract] = await jobs(q, clock, 'ws_t', 'extract')
    const p = policy({ bulkSlots: 1 })
    expect((await q.leaseRepo.claim(['sync', 'extract'], 'w1', 60_000, 3, p)).map((j) => j.id)).toEqual([
      first!,
      extract!,
    ])
    expect((await q.repo.get(second!))!.status).toBe('pending')
  })

  test('free slots go to the workspace running the fewest jobs, then to the oldest job', async () => {
    const { q, clock } = queue()
    const [a1, a2] = await jobs(q, clock, 'ws_a', 'extract', 2)
    expect((await q.leaseRepo.claim(['extract'], 'w1', 60_000, 1, policy())).map((j) => j.id)).toEqual([a1!])
    const [c1] = await jobs(q, clock, 'ws_c', 'extract')
    const [b1] = await jobs(q, clock, 'ws_b', 'extract')
    // A runs one already: C's and B's jobs (C's older) come before A's older second.
    expect((await q.leaseRepo.claim(['extract'], 'w1', 60_000, 3, policy())).map((j) => j.id)).toEqual([
      c1!,
      b1!,
      a2!,
    ])
  })

  test('the candidates read are a few a workspace, not every waiting job', async () => {
    const { q, clock } = queue()
    await jobs(q, clock, 'ws_t', 'extract', 2_000)
    await jobs(q, clock, 'ws_t', 'sync', 50)
    await jobs(q, clock, 'ws_b', 'extract', 3)
    const read = await new ClaimReads(q.store).candidatesOf(['extract', 'sync'], clock.now().getTime(), 2)
    const count = (ws: string, kind: string) =>
      read.filter((c) => c.workspaceId === ws && c.kind === kind).length
    expect([count('ws_t', 'extract'), count('ws_t', 'sync'), count('ws_b', 'extract')]).toEqual([2, 2, 2])
    // Each workspace's due jobs of a kind are one range of the index, already in age order: a
    // workspace's thousands of waiting extractions are not read through to find its syncs.
    const plan = db.$client
      .query<{ detail: string }, []>(
        `EXPLAIN QUERY PLAN SELECT d.id FROM jobs d WHERE d.status = 'pending' AND d.workspace_id = 'ws_t'
         AND d.kind = 'sync' AND d.run_at <= 0 ORDER BY d.run_at, d.seq LIMIT 2`,
      )
      .all()
      .map((r) => r.detail)
    expect(plan).toEqual([
      'SEARCH d USING INDEX jobs_fair (status=? AND workspace_id=? AND kind=? AND run_at<?)',
    ])
  })

  test('a poll that finds nothing due prepares no statement: its reads are prepared once', async () => {
    const { q, clock } = queue()
    await jobs(q, clock, 'ws_a', 'extract', 2)
    await q.store.unit(() =>
      q.add({ workspaceId: 'ws_b', kind: 'sync', runAt: clock.now().getTime() + 60_000 }),
    )
    expect(await q.leaseRepo.claim(['extract', 'sync'], 'w1', 60_000, 2, policy())).toHaveLength(2)
    const client = db.$client
    const prepare = client.prepare.bind(client)
    const statements: string[] = []
    client.prepare = ((text: string) => {
      statements.push(text)
      return prepare(text)
    }) as typeof client.prepare
    // ws_b's sync is pending but not due: the candidates' walk reads it and takes nothing.
    expect(await q.leaseRepo.claim(['extract', 'sync'], 'w1', 60_000, 2, policy())).toEqual([])
    clock.advance(1_000)
    expect(await q.leaseRepo.claim(['extract', 'sync'], 'w2', 60_000, 2, policy())).toEqual([])
    expect(statements).toEqual([])
    clock.advance(60_000)
    expect(await q.leaseRepo.claim(['extract', 'sync'], 'w2', 60_000, 2, policy())).toHaveLength(1)
  })

  test('deleting a subject cancels its pending jobs at once and flags its running ones', async () => {
    const { q, clock } = queue()
    const running = await q.store.unit(() => q.add({ workspaceId: 'ws_t', kind: 'sync', subjectId: 'src_1' }))
    await q.leaseRepo.claim(['sync'], 'w1', 60_000, 1, policy())
    clock.advance(1)
    const pending = await q.store.unit(() => q.add({ workspaceId: 'ws_t', kind: 'sync', subjectId: 'src_1' }))
    const other = await q.store.unit(() => q.add({ workspaceId: 'ws_t', kind: 'sync', subjectId: 'src_2' }))
    expect(await q.repo.cancelSubject('ws_t', 'src_1')).toBe(2)
    expect(await q.repo.get(pending.id)).toMatchObject({ status: 'canceled', cancelRequested: true })
    expect(await q.repo.get(running.id)).toMatchObject({ status: 'running', cancelRequested: true })
    expect(await q.repo.get(other.id)).toMatchObject({ status: 'pending', cancelRequested: false })
  })
})

/** A scheduler over the test's queue with the production caps. */
function scheduler(q: JobQueue, clock: ManualClock, o: { workers: number; workspaceSlots?: number }) {
  return new Scheduler({
    queue: q,
    clock,
    log: memoryLogger(),
    workers: o.workers,
    workspaceSlots: o.workspaceSlots ?? o.workers - 1,
    interactiveSlots: 1,
    leaseMs: 30_000,
    pollMs: 50,
    owner: 'node-a',
  })
}

/** A handler that runs until its job's stop signal aborts it (a listing that never ends). */
const endless: JobHandler = (ctx) =>
  new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)))

describe('the scheduler under the fair claim', () => {
  test("one workspace's three endless syncs leave a slot for another workspace's upload", async () => {
    const { q, clock } = queue()
    const s = scheduler(q, clock, { workers: 2 })
    s.register('sync', endless, { lane: 'bulk' })
    s.register('extract', async () => 'extracted')
    const syncs = await jobs(q, clock, 'ws_t', 'sync', 3)
    const [upload] = await jobs(q, clock, 'ws_b', 'extract')
    expect((await s.step()).map((j) => j.id)).toEqual([syncs[0]!, upload!])
    await s.whenSettled(upload!)
    expect((await q.repo.get(upload!))!.status).toBe('succeeded')
    // The freed slot is interactive: the other syncs still wait.
    expect(await s.step()).toEqual([])
    for (const id of syncs) await q.repo.requestCancel(id)
    await s.drain()
    expect((await Promise.all(syncs.map((id) => q.repo.get(id)))).map((j) => j!.status)).toEqual([
      'canceled',
      'canceled',
      'canceled',
    ])
  })

  test("a cancel aborts the running job's signal at the next tick: its requests end, the job ends canceled", async () => {
    const { q, clock } = queue()
    const s = scheduler(q, clock, { workers: 2 })
    s.register('sync', endless, { lane: 'bulk' })
    const [id] = await jobs(q, clock, 'ws_t', 'sync')
    await s.step()
    await q.repo.requestCancel(id!)
    await s.step()
    await s.idle()
    expect(await q.repo.get(id!)).toMatchObject({ status: 'canceled', leaseOwner: null })
  })

  test('a job that ignores its stop is not kept alive by heartbeat: a lease later its slot is taken back', async () => {
    const { q, clock } = queue()
    const s = scheduler(q, clock, { workers: 1 })
    const settled: string[] = []
    s.register('deaf', () => new Promise(() => {}), { onSettled: (j) => settled.push(j.status) })
    s.register('extract', async () => 'ok')
    const [deaf] = await jobs(q, clock, 'ws_t', 'deaf')
    await s.step()
    await q.repo.requestCancel(deaf!)
    await s.step()
    clock.advance(29_000)
    await s.step()
    expect((await q.repo.get(deaf!))!.status).toBe('running')
    clock.advance(1_000)
    const [next] = await jobs(q, clock, 'ws_b', 'extract')
    expect((await s.step()).map((j) => j.id)).toEqual([next!])
    expect(await q.repo.get(deaf!)).toMatchObject({ status: 'canceled', leaseOwner: null })
    expect(settled).toEqual(['canceled'])
    // Its lease is not renewed any more: nothing of it is left running here.
    await s.idle()
    expect(s.active).toBe(0)
  })

  test("a job past its kind's time budget fails with the budget's message, at a checkpoint or at a tick", async () => {
    const { q, clock } = queue()
    const s = scheduler(q, clock, { workers: 2, workspaceSlots: 2 })
    const budget = { ms: 60_000, message: 'The run took longer than its budget.' }
    let proceed = () => {}
    s.register(
      'paged',
      async (ctx) => {
        ctx.checkpoint()
        await new Promise<void>((r) => {
          proceed = r
        })
        ctx.checkpoint()
        return 'never'
      },
      { lane: 'bulk', budget },
    )
    s.register('waiting', endless, { budget })
    const [paged, waiting] = [
      ...(await jobs(q, clock, 'ws_t', 'paged')),
      ...(await jobs(q, clock, 'ws_u', 'waiting')),
    ]
    await s.step()
    // Ticks within the lease renew it; the budget counts from the start all the same.
    for (let i = 0; i < 3; i++) {
      clock.advance(20_000)
      await s.step()
    }
    expect((await q.repo.get(paged!))!.status).toBe('running')
    clock.advance(1)
    proceed()
    await s.whenSettled(paged!)
    expect(await q.repo.get(paged!)).toMatchObject({ status: 'failed', error: budget.message })
    await s.step()
    await s.idle()
    expect(await q.repo.get(waiting!)).toMatchObject({ status: 'failed', error: budget.message })
  })

  test('a job another worker took over is stopped here and not ended by this worker', async () => {
    const { q, clock } = queue()
    const s = scheduler(q, clock, { workers: 1 })
    let stopped = ''
    s.register(
      'sync',
      (ctx) =>
        endless(ctx).catch((e) => {
          stopped = (e as Error).message
          throw e
        }),
      { lane: 'bulk' },
    )
    const [id] = await jobs(q, clock, 'ws_t', 'sync')
    await s.step()
    // This process stalled past its lease: another took the job over.
    clock.advance(31_000)
    await q.leaseRepo.recoverExpired()
    const [taken] = await q.leaseRepo.claim(['sync'], 'node-b', 30_000, 1)
    expect(taken!.id).toBe(id!)
    await s.step()
    await s.idle()
    expect(stopped).toBe('another worker took the job over')
    expect(await q.repo.get(id!)).toMatchObject({ status: 'running', leaseOwner: 'node-b' })
  })
})
