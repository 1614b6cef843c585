// One transaction's worth of a sync: the files to fetch, those seen unchanged, those gone. A batch
// fetches its files (a few at once), stores them, and registers everything in one transaction with
// the records of what each file became, so a sync killed at any point resumes without duplicates.

import type { Actor } from '../../platform/auth/principal'
import type { CorporaService, DocumentRow } from '../corpora/corpora.service'
import type { IngestService } from '../ingest/ingest.service'
import { type SourceConnector, SourceError, type SourceFile } from './connectors/connector'
import type { ItemRow, SourceRow, SourcesRepo } from './sources.repo'

/** What a batch works with. */
export interface BatchDeps {
  repo: SourcesRepo
  ingest: IngestService
  corpora: CorporaService
  connector: SourceConnector
  maxFileBytes: number
  concurrency: number
}

/** What a run's batches have done so far (for the job's progress). */
export interface Tally {
  seen: number
  fetched: number
  failed: number
  removed: number
}

/** A file read whole past this size waits for the other large reads: one at a time. */
const LARGE_FILE_BYTES = 16 * 1024 * 1024

export class SyncBatch {
  private large: Promise<void> = Promise.resolve()
  private fetch: SourceFile[] = []
  private unchanged: string[] = []
  private gone: ItemRow[] = []
  /** Files renamed or moved within the folder: their old documents go when the new ones come. */
  private moved: ItemRow[] = []
  /** Files listed (and ids said removed) since the last flush: their records are read in one query. */
  private listed: SourceFile[] = []
  private said: string[] = []
  /** The records of the files being flushed, as they were before it. */
  private known = new Map<string, ItemRow>()

  constructor(
    private readonly d: BatchDeps,
    private readonly source: SourceRow,
    private readonly runId: string,
    readonly tally: Tally,
  ) {}

  /** Who documents synced by this source belong to: the source for a sync, nobody for an import. */
  get managedBy(): string | null {
    return this.source.mode === 'sync' ? `source:${this.source.id}` : null
  }

  get size(): number {
    const taken = this.listed.length + this.said.length
    return taken + this.fetch.length + this.unchanged.length + this.gone.length + this.moved.length
  }

  /** Takes one file of the listing (sorted out at the flush, with its record). */
  file(file: SourceFile): void {
    this.listed.push(file)
  }

  /** Takes a file the source says is gone. */
  removed(itemId: string): void {
    this.said.push(itemId)
  }

  /** Reads the records of the files taken since the last flush (one query) and sorts the files out. */
  private async sortOut(): Promise<void> {
    const ids = [...this.listed.map((f) => f.id), ...this.said]
    const rows = await this.d.repo.itemsOf(this.source.id, [...new Set(ids)])
    this.known = new Map(rows.map((r) => [r.itemId, r]))
    for (const file of this.listed) await this.sortFile(file)
    for (const id of this.said) {
      const item = this.known.get(id)
      if (item) this.gone.push(item)
    }
    this.listed = []
    this.said = []
  }

  /** One file of the listing: unchanged (recorded as seen), or to be fetched. */
  private async sortFile(file: SourceFile): Promise<void> {
    const item = this.known.get(file.id) ?? null
    // A resumed run already did this file.
    if (item?.seenRun === this.runId) return
    this.tally.seen++
    const same = item?.version === file.version && item.path === file.path
    if (item && same && (await this.documentHeld(item))) this.unchanged.push(file.id)
    else this.fetch.push(file)
    if (item?.documentId && item.path !== file.path) this.moved.push(item)
  }

  /** Takes files a complete listing did not list. */
  goneAll(items: ItemRow[]): void {
    this.gone.push(...items)
  }

  /** Fetches, stores and registers the batch; then it is empty again. */
  async flush(actor: Actor): Promise<void> {
    await this.sortOut()
    if (this.size === 0) return
    const { ingest, repo, source } = { ...this.d, source: this.source }
    const files = this.fetch
    // The batch's new files are written together (small ones in packs) and flushed once, before any is registered.
    const store = ingest.sourceFiles(source.workspaceId, source.corpusId)
    let stored: Fetched[]
    try {
      stored = await this.fetchAll(files, store)
      await store.finish()
    } catch (e) {
      await store.undo()
      throw e
    }
    const taken = await Promise.all(
      stored.flatMap((s) => (s.ok ? [s.item.then((item) => ({ ...s, item }))] : [])),
    )
    const failures = stored.filter((s) => !s.ok)
    const deletions = await this.deletable([...this.gone, ...this.moved])
    let refused = 0
    const unchanged = this.unchanged
    const gone = this.gone
    this.fetch = []
    this.unchanged = []
    this.gone = []
    this.moved = []
    await ingest.registerSourceBatch(source.workspaceId, source.corpusId, {
      // Documents a connector brought are `import`s whichever way (a sync or a one-time import).
      source: 'import',
      items: taken.map((s) => s.item),
      fresh: store.written,
      managedBy: this.managedBy,
      deletions: { rows: deletions, by: { actor, via: 'source' } },
      into: {
        runId: this.runId,
        unchanged: unchanged.length,
        failures: failures.map((f) => ({ path: f.file.path, document_id: f.documentId, error: f.error })),
        // Files past the plan's documents or storage cap are left out and listed as the run's errors.
        partial: true,
        // In ingest's unit: what the files became lands with their documents (a statement a slice).
        within: async (ids) => {
          const items = taken.map((s, i) => {
            const id = ids[i] ?? null
            // A file the cap left out keeps its old record: the next sync tries it again.
            if (id === null) refused++
            return { ...(id === null ? s.retry : { ...s.record, documentId: id }), seenRun: this.runId }
          })
          for (const f of failures) items.push({ ...f.record, seenRun: this.runId })
          await repo.putItems(items)
          await repo.markSeen(source.id, unchanged, this.runId)
          await repo.deleteItems(
            source.id,
            gone.map((g) => g.itemId),
          )
        },
      },
    })
    this.tally.fetched += taken.length - refused
    this.tally.failed += failures.length + refused
    this.tally.removed += deletions.length
  }

  /** Whether the document a file became is still there and still this source's. */
  private async documentHeld(item: ItemRow): Promise<boolean> {
    if (!item.documentId) return false
    const doc = await this.d.corpora.document(this.source.corpusId, item.documentId)
    return doc !== null && (this.managedBy === null || doc.managed_by === this.managedBy)
  }

  /** The documents of gone files that this source still manages (an import never deletes). */
  private async deletable(items: ItemRow[]): Promise<DocumentRow[]> {
    if (this.managedBy === null) return []
    const rows: DocumentRow[] = []
    for (const item of items) {
      const doc = item.documentId
        ? await this.d.corpora.document(this.source.corpusId, item.documentId)
        : null
      if (doc && doc.parent_id === null && doc.managed_by === this.managedBy) rows.push(doc)
    }
    return rows
  }

  /** Runs `work` after every large read before it has finished. */
  private oneAtATime<T>(work: () => Promise<T>): Promise<T> {
    const run = this.large.then(work)
    this.large = run.then(
      () => {},
      () => {},
    )
    return run
  }

  /**
   * Fetches and stores files, `concurrency` at once but large ones (or of unknown size) one at a
   * time, so memory stays near `concurrency` small files plus one large one; a file that cannot be
   * taken is a per-file failure.
   */
  private async fetchAll(files: SourceFile[], store: SourceFiles): Promise<Fetched[]> {
    const out: Fetched[] = new Array(files.length)
    let next = 0
    const worker = async () => {
      while (next < files.length) {
        const i = next++
        const file = files[i]!
        const large = file.size < 0 || file.size > LARGE_FILE_BYTES
        out[i] = await (large
          ? this.oneAtATime(() => this.fetchOne(file, store))
          : this.fetchOne(file, store))
      }
    }
    await Promise.all(Array.from({ length: Math.min(this.d.concurrency, files.length) }, worker))
    return out
  }

  private async fetchOne(file: SourceFile, store: SourceFiles): Promise<Fetched> {
    const { source } = this
    const previous = this.known.get(file.id)
    const record = { sourceId: source.id, itemId: file.id, path: file.path, version: file.version }
    // The old version stays recorded: the next sync tries the file again.
    const retry = { ...record, version: previous?.version ?? '', documentId: previous?.documentId ?? null }
    const failed = (error: string): Fetched => ({
      ok: false,
      file,
      error,
      documentId: previous?.documentId ?? null,
      record: retry,
    })
    let bytes: Uint8Array
    try {
      bytes = await this.d.connector.read(file, this.d.maxFileBytes)
    } catch (e) {
      if (e instanceof SourceError && !e.transient) return failed(e.message)
      throw e
    }
    const path = joinPath(source.pathPrefix, file.path)
    const stored = await store.store({ path, bytes, contentType: file.contentType })
    if (!stored.ok) return failed(stored.error)
    return { ok: true, file, item: stored.item, record, retry }
  }
}

/** Where a batch's fetched files are stored (IngestService.sourceFiles). */
type SourceFiles = ReturnType<IngestService['sourceFiles']>

type Fetched =
  | {
      ok: true
      file: SourceFile
      /** What the file is once stored (its pack written: SourceFiles.finish). */
      item: Promise<Parameters<IngestService['registerSourceBatch']>[2]['items'][number]>
      record: Omit<ItemRow, 'documentId' | 'seenRun'>
      /** What is recorded when the plan's cap leaves the file out (as a failed file's). */
      retry: Omit<ItemRow, 'seenRun'>
    }
  | {
      ok: false
      file: SourceFile
      error: string
      documentId: string | null
      record: Omit<ItemRow, 'seenRun'>
    }

/** A document path: the source's prefix, then the file's path under the folder. */
export function joinPath(prefix: string, path: string): string {
  const p = prefix.replace(/^\/+|\/+$/g, '')
  return p ? `${p}/${path}` : path
}
