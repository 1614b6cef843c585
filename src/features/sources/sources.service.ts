import type { Actor } from '../../platform/auth/principal'
import { newId } from '../../platform/crypto/random'
import { fail, notFound } from '../../platform/errors/errors'
import type { ReadableJobs } from '../../platform/jobs/queue'
import type { DocumentRow } from '../corpora/corpora.service'
import type { SyncRunRow } from '../ingest/ingest.service'
import type { ConnectorKind, SourceKind } from './connectors/connector'
import { tellSourceChange } from './sources.audit'
import { checkedSource, newSourceRow, type SourceInput } from './sources.checked'
import { apiErrorOf } from './sources.errors'
import type { SourceRow } from './sources.repo'
import { asSourceError, endRun, SYNC_JOB, type SyncDeps, scheduleNext } from './sources.sync'

/** A source with what its listing shows: its kind and its runs. */
export interface SourceView {
  row: SourceRow
  kind: SourceKind
  currentRun: SyncRunRow | null
  lastRun: SyncRunRow | null
}

export type { SourceInput } from './sources.checked'

/**
 * Sources: a base kept in step with a folder through a connection, and imports (one copy of a
 * folder). Every change is checked before anything is written: the base and the connection are the
 * caller's (else 404), the folder is valid for the kind, the schedule is not too frequent.
 */
export class SourcesService {
  /**
   * Sync jobs (a source's or an import's) are followed by id like onboarding's: the console's bar
   * and docs/sources.md read `GET /jobs/{job_id}`, which onboarding serves and asks this. A job's
   * subject is its source; the source names the base (a deleted source's job is gone with it).
   */
  readonly readableJobs: ReadableJobs

  constructor(private readonly d: SyncDeps) {
    this.readableJobs = {
      kinds: [SYNC_JOB],
      corpusOf: async (job) =>
        job.subjectId ? ((await d.repo.sourceById(job.subjectId))?.corpusId ?? null) : null,
    }
  }

  get connections() {
    return this.d.connections
  }

  /** Every kind of source this server knows. */
  kinds(): ConnectorKind[] {
    return [...this.d.kinds.values()]
  }

  /** Every kind, and whether this workspace can use it now (a server folder needs a granted root). */
  async kindsFor(
    workspaceId: string,
  ): Promise<{ kind: SourceKind; enabled: boolean; reason: string | null }[]> {
    return Promise.all(
      this.kinds().map(async (k) => {
        const reason = (await k.unavailable?.(this.d.env, workspaceId)) ?? null
        return { kind: k.kind, enabled: reason === null, reason }
      }),
    )
  }

  async create(
    workspaceId: string,
    corpusId: string,
    input: SourceInput,
    actor?: Actor,
  ): Promise<SourceView> {
    await this.d.corpora.get(workspaceId, corpusId)
    const fields = await this.checked(workspaceId, input)
    const now = this.now()
    const row = newSourceRow(newId(this.d.random, 'src'), workspaceId, corpusId, 'sync', fields, now)
    await this.d.store.unit(async () => {
      await this.d.repo.insertSource(row)
      await scheduleNext(this.d, row)
      await tellSourceChange(this.d, 'source.created', row, actor)
    })
    return this.get(workspaceId, corpusId, row.id)
  }

  async list(workspaceId: string, corpusId: string): Promise<SourceView[]> {
    await this.d.corpora.get(workspaceId, corpusId)
    return Promise.all((await this.d.repo.sources(corpusId, 'sync')).map((r) => this.view(r)))
  }

  async get(workspaceId: string, corpusId: string, id: string): Promise<SourceView> {
    return this.view(await this.row(workspaceId, corpusId, id))
  }

  /** Changes a source; a new folder or connection makes the next sync list everything again. */
  async update(
    workspaceId: string,
    corpusId: string,
    id: string,
    input: Partial<SourceInput>,
    actor?: Actor,
  ): Promise<SourceView> {
    const row = await this.row(workspaceId, corpusId, id)
    const fields = await this.checked(workspaceId, {
      connection_id: input.connection_id ?? row.connectionId,
      folder: input.folder ?? row.folder,
      name: input.name ?? row.name,
      path_prefix: input.path_prefix ?? row.pathPrefix,
      interval_minutes: input.interval_minutes === undefined ? row.intervalMinutes : input.interval_minutes,
    })
    const moved = fields.folder !== row.folder || fields.connectionId !== row.connectionId
    await this.d.store.unit(async () => {
      // Read again in the unit: a sync may have moved its runs and schedule since.
      const now = (await this.d.repo.sourceById(id)) ?? row
      const next = { ...now, ...fields, cursor: moved ? null : now.cursor, updatedAt: this.now() }
      await this.d.repo.updateSource(next)
      if (next.intervalMinutes !== now.intervalMinutes) await scheduleNext(this.d, next)
      await tellSourceChange(this.d, 'source.updated', next, actor)
    })
    return this.get(workspaceId, corpusId, id)
  }

  /**
   * Deletes a source: its sync is stopped and its schedule dropped. Its documents stay unless
   * `deleteDocuments`, which deletes them as a user's delete does, each with a receipt.
   */
  async delete(
    workspaceId: string,
    corpusId: string,
    id: string,
    o: { deleteDocuments: boolean; actor: Actor },
  ): Promise<{ deleted_documents: number }> {
    const row = await this.row(workspaceId, corpusId, id)
    const docs = o.deleteDocuments ? await this.documentsOf(row) : []
    let removed: DocumentRow[] = []
    await this.d.store.unit(async () => {
      // Every run of the source stops: pending ones now, a listing one at its next page or request.
      await this.d.queue.repo.cancelSubject(workspaceId, row.id)
      if (row.currentRunId) {
        await this.d.ingest.closeSourceRun(row.currentRunId, {
          status: 'canceled',
          error: 'The source was deleted.',
        })
      }
      removed = await this.d.corpora.detach(workspaceId, corpusId, docs, { actor: o.actor, via: 'api' })
      await this.d.repo.deleteSource(row.id)
      await tellSourceChange(this.d, 'source.deleted', row, o.actor, { deleted_documents: docs.length })
    })
    await this.d.corpora.purge(workspaceId, corpusId, removed)
    return { deleted_documents: docs.length }
  }

  /** Checks the connection reaches the folder with the permissions a sync needs. */
  async validate(
    workspaceId: string,
    corpusId: string,
    id: string,
  ): Promise<{ kind: SourceKind; folder: string }> {
    const row = await this.row(workspaceId, corpusId, id)
    const { connector, kind } = await this.connector(row)
    try {
      await connector.validate()
    } catch (e) {
      const reason = asSourceError(e)
      throw reason ? apiErrorOf(reason) : e
    }
    return { kind, folder: row.folder }
  }

  /** Starts a sync now; returns its run (409 while one is listing). The check and the start are one unit. */
  async sync(workspaceId: string, corpusId: string, id: string): Promise<SyncRunRow> {
    return this.d.store.unit(async () => {
      const row = await this.row(workspaceId, corpusId, id)
      const running = await this.currentRun(row)
      if (running?.listing === 1) {
        throw fail('sync_in_progress', undefined, { run_id: running.id })
      }
      return this.start(row)
    })
  }

  /** Asks the sync listing now to stop; its run ends `canceled`. 409 when none is running. */
  async cancel(workspaceId: string, corpusId: string, id: string): Promise<SyncRunRow> {
    const row = await this.row(workspaceId, corpusId, id)
    const running = await this.currentRun(row)
    if (running?.listing !== 1 || !running.jobId) throw fail('conflict', 'No sync of this source is running.')
    const jobId = running.jobId
    await this.d.store.unit(async () => {
      await this.d.queue.repo.requestCancel(jobId)
      const job = await this.d.queue.repo.get(jobId)
      // A job not claimed yet never runs: its run ends now.
      if (job?.status === 'pending' || job?.status === 'canceled') {
        await endRun(this.d, row.id, running.id, { status: 'canceled', error: 'The sync was canceled.' })
      }
    })
    return (await this.d.ingest.runById(corpusId, running.id))!
  }

  /** Opens a run and queues the job that lists the source for it, in one unit. */
  start(row: SourceRow): Promise<SyncRunRow> {
    return this.d.store.unit(async () => {
      const run = await this.d.ingest.openSourceRun(row.workspaceId, row.corpusId, {
        sourceId: row.id,
        jobId: null,
        mode: row.mode,
      })
      const job = await this.d.queue.add({
        workspaceId: row.workspaceId,
        kind: SYNC_JOB,
        subjectId: row.id,
        payload: { source_id: row.id, run_id: run.id },
        maxAttempts: 5,
      })
      await this.d.ingest.attachRunJob(run.id, job.id)
      await this.d.repo.updateSource({ ...row, currentRunId: run.id, updatedAt: this.now() })
      return (await this.d.ingest.runById(row.corpusId, run.id))!
    })
  }

  /** The fields of a source, checked: connection of the workspace, folder valid for its kind, schedule. */
  checked(workspaceId: string, input: SourceInput) {
    return checkedSource(this.d, workspaceId, input)
  }

  /** One source (or import) of a base; another base's or workspace's is a 404. */
  async row(
    workspaceId: string,
    corpusId: string,
    id: string,
    mode: 'sync' | 'import' = 'sync',
  ): Promise<SourceRow> {
    await this.d.corpora.get(workspaceId, corpusId)
    const row = await this.d.repo.source(workspaceId, corpusId, id)
    if (!row || row.mode !== mode) throw notFound('Source')
    return row
  }

  async view(row: SourceRow): Promise<SourceView> {
    const kind = (await this.d.connections.get(row.workspaceId, row.connectionId)).kind
    const runOf = (id: string | null) => (id ? this.d.ingest.runById(row.corpusId, id) : null)
    return { row, kind, currentRun: await runOf(row.currentRunId), lastRun: await runOf(row.lastRunId) }
  }

  async currentRun(row: SourceRow): Promise<SyncRunRow | null> {
    return row.currentRunId ? this.d.ingest.runById(row.corpusId, row.currentRunId) : null
  }

  private async connector(row: SourceRow) {
    const connection = await this.d.connections.open(row.workspaceId, row.connectionId)
    const kind = this.d.connections.kindOf(connection.kind)
    return { kind: kind.kind, connector: kind.open({ ...connection, folder: row.folder, env: this.d.env }) }
  }

  /** The parent documents a source brought that it still manages. */
  private async documentsOf(row: SourceRow): Promise<DocumentRow[]> {
    const managedBy = `source:${row.id}`
    const items = await this.d.repo.items(row.id)
    const docs = await Promise.all(
      items.flatMap((i) => (i.documentId ? [this.d.corpora.document(row.corpusId, i.documentId)] : [])),
    )
    return docs.filter(
      (doc): doc is DocumentRow => doc !== null && doc.parent_id === null && doc.managed_by === managedBy,
    )
  }

  private now(): number {
    return this.d.clock.now().getTime()
  }
}
