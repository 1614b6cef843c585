import { newId } from '../../platform/crypto/random'
import { fail } from '../../platform/errors/errors'
import type { SyncRunRow } from '../ingest/ingest.service'
import { newSourceRow } from './sources.checked'
import type { SourceRow } from './sources.repo'
import type { SourceInput, SourcesService } from './sources.service'
import type { SyncDeps } from './sources.sync'

/** An import's state as import-status reports it; `none` before the base's first import. */
export type ImportState =
  | { state: 'none' }
  | { state: SyncRunRow['status']; row: SourceRow; kind: string; run: SyncRunRow | null }

/**
 * Imports: a one-time copy of one folder through a connection into a base. An import is a source
 * row of mode `import` run once by the same sync job: it never deletes, and its documents are the
 * base's own (nothing manages them), so a later upload or push may change them like any other.
 */
export class Imports {
  constructor(
    private readonly d: SyncDeps,
    private readonly sources: SourcesService,
  ) {}

  /** Starts an import (409 `import_in_progress` while one of the base runs; 403 `plan_limit_reached` when full). */
  async start(
    workspaceId: string,
    corpusId: string,
    input: Omit<SourceInput, 'interval_minutes'>,
  ): Promise<ImportState> {
    await this.d.corpora.get(workspaceId, corpusId)
    const fields = await this.sources.checked(workspaceId, { ...input, interval_minutes: null })
    const latest = await this.latest(corpusId)
    if (latest && (await this.sources.currentRun(latest))?.status === 'running') {
      throw fail('import_in_progress', undefined, { import_id: latest.id })
    }
    // A workspace at its plan's documents or storage cap has no room for any new file: 403 now.
    // Otherwise the files that fit are taken and the rest listed as the run's errors (sync-batch).
    await this.d.ingest.ensureNotFull(workspaceId)
    const now = this.d.clock.now().getTime()
    const row = newSourceRow(newId(this.d.random, 'imp'), workspaceId, corpusId, 'import', fields, now)
    await this.d.store.unit(async () => {
      await this.d.repo.insertSource(row)
      await this.sources.start(row)
    })
    return this.status(workspaceId, corpusId)
  }

  /** The base's latest import and its run, or `none`. */
  async status(workspaceId: string, corpusId: string): Promise<ImportState> {
    await this.d.corpora.get(workspaceId, corpusId)
    const row = await this.latest(corpusId)
    if (!row) return { state: 'none' }
    const runId = row.currentRunId ?? row.lastRunId
    const run = runId ? await this.d.ingest.runById(corpusId, runId) : null
    const kind = (await this.d.connections.get(workspaceId, row.connectionId)).kind
    return { state: run?.status ?? 'running', row, kind, run }
  }

  private async latest(corpusId: string): Promise<SourceRow | null> {
    return (await this.d.repo.sources(corpusId, 'import'))[0] ?? null
  }
}
