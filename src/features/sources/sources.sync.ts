// The sync job: lists a source through its connector and brings the base in step, batch by batch.
// A run is opened when the job starts (or by `POST .../sync`, which returns it); the job resumes it
// after a crash, skipping the files its run already took; a source that is busy or rate-limiting
// makes the job retry later, as the source asked.

import type { Actor } from '../../platform/auth/principal'
import type { Clock } from '../../platform/clock/clock'
import type { Config } from '../../platform/config/config.load'
import type { Random } from '../../platform/crypto/random'
import type { Store } from '../../platform/db/store'
import type { Outbox } from '../../platform/events/outbox'
import type { JobQueue, NewJob } from '../../platform/jobs/queue'
import { type JobContext, TransientError } from '../../platform/jobs/scheduler'
import type { Logger } from '../../platform/log/log'
import { EgressDenied } from '../../platform/net/egress'
import type { CorporaService } from '../corpora/corpora.service'
import type { IngestService } from '../ingest/ingest.service'
import { type ConnectorEnv, type ConnectorKind, SourceError, type SourceKind } from './connectors/connector'
import { forRun } from './connectors/run'
import type { Connections } from './sources.connections'
import type { SourceRow, SourcesRepo } from './sources.repo'
import { SyncBatch, type Tally } from './sources.sync-batch'

export const SYNC_JOB = 'sources.sync'

/** What a sync job is given: the source, and the run `POST .../sync` opened (null: a scheduled sync). */
export interface SyncPayload {
  source_id: string
  run_id: string | null
}

export interface SyncDeps {
  store: Store
  clock: Clock
  random: Random
  log: Logger
  queue: JobQueue
  repo: SourcesRepo
  connections: Connections
  kinds: ReadonlyMap<SourceKind, ConnectorKind>
  env: ConnectorEnv
  ingest: IngestService
  corpora: CorporaService
  /** A source's changes are told for the audit log (`sources.audit.ts`). */
  events: Outbox
  config: Config['sources']
  maxFileBytes: number
}

/** Deletions at the source are recorded as the system's, on behalf of the source. */
const actorFor = (source: SourceRow): Actor => ({ type: 'system', id: source.id })

export async function runSync(d: SyncDeps, ctx: JobContext): Promise<unknown> {
  const p = ctx.job.payload as unknown as SyncPayload
  const source = await d.repo.sourceById(p.source_id)
  if (!source) return { outcome: 'gone' }
  const runId = p.run_id ?? (await claimRun(d, source, ctx.job.id))
  if (!runId) return { outcome: 'busy' }
  // A run canceled (or its source's sync ended) while this job waited: nothing left to do.
  if ((await d.ingest.runById(source.corpusId, runId))?.listing !== 1) return { outcome: 'closed' }
  const tally: Tally = { seen: 0, fetched: 0, failed: 0, removed: 0 }
  try {
    await listAndTake(d, ctx, source, runId, tally)
  } catch (e) {
    // A run told to stop ends as told (canceled, out of time), whatever failure the stop caused:
    // an aborted request surfaces as a network error the source did not make.
    ctx.checkpoint()
    const reason = asSourceError(e)
    if (!reason) throw e
    if (reason.transient) throw new TransientError(reason.message, reason.retryAfterMs)
    // Credentials refused, folder gone: retrying will not help; the run says why.
    await endRun(d, source.id, runId, { status: 'failed', error: reason.message })
    return { outcome: 'failed', error: reason.message, ...tally }
  }
  return { outcome: 'synced', ...tally }
}

/**
 * Opens the run of a scheduled sync, or finds it again after a crash; null when another sync runs.
 * One unit, reading the source again in it: the check and the claim land together.
 */
function claimRun(d: SyncDeps, read: SourceRow, jobId: string): Promise<string | null> {
  return d.store.unit(async () => {
    const source = (await d.repo.sourceById(read.id)) ?? read
    const current = source.currentRunId ? await d.ingest.runById(source.corpusId, source.currentRunId) : null
    if (current?.jobId === jobId && current.listing === 1) return current.id
    if (source.nextJobId === jobId) {
      await d.repo.updateSource({ ...source, nextJobId: null, nextSyncAt: null })
    }
    if (current?.listing === 1) return null
    const run = await d.ingest.openSourceRun(source.workspaceId, source.corpusId, {
      sourceId: source.id,
      jobId,
      mode: source.mode,
    })
    const fresh = (await d.repo.sourceById(source.id))!
    await d.repo.updateSource({ ...fresh, currentRunId: run.id, updatedAt: d.clock.now().getTime() })
    return run.id
  })
}

async function listAndTake(
  d: SyncDeps,
  ctx: JobContext,
  source: SourceRow,
  runId: string,
  tally: Tally,
): Promise<void> {
  const connection = await d.connections.open(source.workspaceId, source.connectionId)
  const kind = d.kinds.get(connection.kind)!
  // Every page and request of the run checks the job first and is aborted with it.
  const env = forRun(d.env, { signal: ctx.signal, checkpoint: () => ctx.checkpoint() })
  const connector = kind.open({ ...connection, folder: source.folder, env })
  const batch = new SyncBatch(
    {
      ...d,
      connector,
      concurrency: d.config.fetch_concurrency,
    },
    source,
    runId,
    tally,
  )
  const listing = await connector.list(source.cursor).catch(async (e) => {
    if (e instanceof SourceError && e.code === 'cursor_expired') return connector.list(null)
    throw e
  })
  const estimate = Math.max(await d.repo.itemCount(source.id), 1)
  const actor = actorFor(source)
  for await (const change of listing.changes) {
    if (change.kind === 'file') batch.file(change.file)
    else batch.removed(change.id)
    if (batch.size >= d.config.batch_files) {
      ctx.checkpoint()
      await batch.flush(actor)
      await ctx.progress({
        unitsDone: tally.seen,
        unitsTotal: Math.max(estimate, tally.seen),
        detail: `${tally.seen} files looked at`,
      })
    }
  }
  ctx.checkpoint()
  await batch.flush(actor)
  if (listing.complete) {
    // Files a complete listing did not name are gone at the source.
    batch.goneAll(await d.repo.unseen(source.id, runId))
    ctx.checkpoint()
    await batch.flush(actor)
  }
  const cursor = listing.nextCursor()
  await d.store.unit(async () => {
    const fresh = await d.repo.sourceById(source.id)
    if (fresh) await d.repo.updateSource({ ...fresh, cursor, updatedAt: d.clock.now().getTime() })
    await endRun(d, source.id, runId)
  })
  await ctx.progress({
    unitsDone: tally.seen,
    unitsTotal: tally.seen,
    detail: `${tally.seen} files looked at`,
  })
}

/**
 * Ends a sync's listing and frees the source for the next; schedules that one when it has an
 * interval. One unit.
 */
export function endRun(
  d: Pick<SyncDeps, 'repo' | 'ingest' | 'clock' | 'queue' | 'store'>,
  sourceId: string,
  runId: string,
  end?: { status: 'failed' | 'canceled'; error: string | null },
): Promise<void> {
  return d.store.unit(async () => {
    await d.ingest.closeSourceRun(runId, end)
    const source = await d.repo.sourceById(sourceId)
    if (!source) return
    const next = { ...source, lastRunId: runId, updatedAt: d.clock.now().getTime() }
    if (source.currentRunId === runId) next.currentRunId = null
    await d.repo.updateSource(next)
    await scheduleNext(d, next)
  })
}

/**
 * Queues the next scheduled sync of a source with an interval (replacing one already queued), or
 * drops it when the source has none.
 */
export async function scheduleNext(
  d: Pick<SyncDeps, 'repo' | 'clock' | 'queue'>,
  source: SourceRow,
): Promise<void> {
  if (source.mode !== 'sync') return
  if (source.nextJobId) {
    const queued = await d.queue.repo.get(source.nextJobId)
    if (queued?.status === 'pending') await d.queue.repo.requestCancel(queued.id)
  }
  let next = { ...source, nextJobId: null as string | null, nextSyncAt: null as number | null }
  const spec = nextSyncJob(source, d.clock.now().getTime())
  if (spec) {
    const job = await d.queue.add(spec)
    next = { ...next, nextJobId: job.id, nextSyncAt: spec.runAt }
  }
  await d.repo.updateSource(next)
}

/** The job of a source's next scheduled sync, or null when it syncs only when asked. */
export function nextSyncJob(source: SourceRow, now: number): (NewJob & { runAt: number }) | null {
  if (!source.intervalMinutes) return null
  const payload = { source_id: source.id, run_id: null } satisfies SyncPayload
  const runAt = now + source.intervalMinutes * 60_000
  return {
    workspaceId: source.workspaceId,
    kind: SYNC_JOB,
    subjectId: source.id,
    payload,
    maxAttempts: 5,
    runAt,
  }
}

/** The SourceError a failure stands for (a refused destination is one too), or null. */
export function asSourceError(e: unknown): SourceError | null {
  if (e instanceof SourceError) return e
  if (e instanceof EgressDenied) return new SourceError('egress_denied', e.message)
  return null
}
