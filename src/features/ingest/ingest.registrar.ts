import { newId, newSortableId } from '../../platform/crypto/random'
import { notFound } from '../../platform/errors/errors'
import type { NewEvent } from '../../platform/events/events'
import { NamedLeases } from '../../platform/leases/leases.repo'
import { parseRange } from '../../platform/storage/ranges'
import type { DocumentRow } from '../corpora/corpora.service'
import { capped as capsApply, ensureRoomFor, holdCaps, holdings, isCapRefusal, noLarger } from './ingest.caps'
import { IngestRepo, type RunError } from './ingest.repo'
import type { ExtractPayload, Incoming, IngestDeps, Registered } from './ingest.types'
import { UploadsRepo } from './ingest.uploads.repo'
import { enqueueExtraction } from './lib/extract-enqueue'
import { blobKey } from './lib/keys'
import { PendingParents } from './lib/pending-parents'
import { countsOf, type RegisterBatch } from './lib/register-batch'

export type { RegisterBatch } from './lib/register-batch'

/** What the registrar works with. */
export type RegistrarDeps = Pick<
  IngestDeps,
  'store' | 'clock' | 'random' | 'objects' | 'corpora' | 'queue' | 'events' | 'plans'
>

/** What registering one file did. */
interface ItemDone {
  id: string
  result: Registered['results'][number]
  /** Rows whose old content is forgotten after the commit. */
  stale: DocumentRow[]
  job: ExtractPayload | null
  /** What the batch tells of the file once its items are registered (none when unchanged). */
  told: 'document.created' | 'document.updated' | null
}

/**
 * What every way in (upload, push, upsert) and the extraction jobs share: registering stored files
 * as documents with their sync run and extraction jobs, the objects in flight (written by a request
 * whose rows are not committed yet, so the orphan sweep leaves them alone), and object keys. The
 * upload, push and sweep modules and the jobs depend on it; it depends on none of them.
 */
export class Registrar {
  readonly repo: IngestRepo
  /** Pushed content waiting for its commit. */
  readonly uploads: UploadsRepo
  /** Object keys written but not yet referenced by a committed row. */
  readonly inflight = new Set<string>()
  /** Push runs whose commit this process is registering, batch by batch (the sweep spares them). */
  readonly committing = new Set<string>()
  /** Leases shared with the other processes on the database: the orphan sweep's and push commits'. */
  readonly leases: NamedLeases
  private owner: string | null = null

  constructor(private readonly deps: RegistrarDeps) {
    this.repo = new IngestRepo(deps.store, deps.events)
    this.uploads = new UploadsRepo(deps.store)
    this.leases = new NamedLeases(deps.store, deps.clock)
  }

  /** This process's name as the holder of ingest's leases (made on first use). */
  leaseOwner(): string {
    this.owner ??= newId(this.deps.random, 'ingest')
    return this.owner
  }

  /** Now, in epoch milliseconds, from the injected clock. */
  now(): number {
    return this.deps.clock.now().getTime()
  }

  /** A fresh object key for raw content of a base (sortable: the rows' key indexes take it at their end). */
  newBlobKey(workspaceId: string, corpusId: string): string {
    return blobKey(workspaceId, corpusId, newSortableId(this.deps.random, 'blob', this.now()))
  }

  /**
   * `register` for objects this request just wrote (`fresh`, marked in flight): if registering
   * fails (the base was deleted meanwhile), they are removed rather than left for the sweep.
   */
  async registerOrDiscard(workspaceId: string, corpusId: string, batch: RegisterBatch): Promise<Registered> {
    const { fresh } = batch
    try {
      return await this.register(workspaceId, corpusId, batch)
    } catch (e) {
      for (const key of fresh) {
        this.inflight.delete(key)
        // Only what no committed row took: a failure after the commit must not lose content.
        await this.dropIfUnused(key).catch(() => {})
      }
      throw e
    } finally {
      for (const key of fresh) this.inflight.delete(key)
    }
  }

  /**
   * Registers stored files as documents and deletes `deletions` (with their receipts), in one
   * unit with the sync run, the events and the extraction jobs (a request's or a batch's files:
   * at most `ingest.max_files_per_request`, a push's COMMIT_BATCH, a source's `sources.batch_files`;
   * the unit awaits nothing but the database); then forgets what the old contents left
   * behind. A path already in the base keeps its id and gets the new content; the same content
   * again is left unchanged. `fresh` lists keys this request wrote: those no row ended up using
   * are removed. `managedBy: 'push'` (a push commit) makes the files it writes push's to delete.
   */
  async register(workspaceId: string, corpusId: string, batch: RegisterBatch): Promise<Registered> {
    const { source, items, fresh } = batch
    const deletions = batch.deletions?.rows ?? []
    const { corpora, queue, store } = this.deps
    const now = this.now()
    const runId = batch.into?.runId ?? newId(this.deps.random, 'run')
    const ids: (string | null)[] = []
    const results: Registered['results'] = []
    const stale: DocumentRow[] = []
    let removed: DocumentRow[] = []
    const capped = await capsApply(this.deps, workspaceId)
    const refused: RunError[] = []
    await store.unit(async () => {
      if (!(await corpora.exists(workspaceId, corpusId))) throw notFound('Document base')
      if (capped) await holdCaps(store, workspaceId)
      const jobs: ExtractPayload[] = []
      const sizes: number[] = []
      const start = capped ? await holdings(this.deps, workspaceId) : null
      const freed = deletions.filter((r) => r.parent_id === null).length
      let noneLarger = true
      // A source's sync takes the files that fit, each in a savepoint; the rest are its run's errors.
      const fits = capped && !!batch.into?.partial
      const pend = await this.pendingFor(corpusId, items, fits)
      const told: NewEvent<'document.created' | 'document.updated'>[] = []
      for (const item of items) {
        const existing = await pend.existingAt(corpusId, item.path)
        noneLarger &&= noLarger(item, existing)
        const write = () => this.registerItem(workspaceId, corpusId, batch, item, existing, runId, now, pend)
        const done = fits ? await this.ifItFits(workspaceId, item, existing, freed, write) : await write()
        if (!('id' in done)) {
          ids.push(null)
          refused.push(done)
          continue
        }
        ids.push(done.id)
        results.push(done.result)
        stale.push(...done.stale)
        if (done.told) told.push({ type: done.told, workspaceId, payload: { corpusId, documentId: done.id } })
        if (done.job) {
          jobs.push(done.job)
          sizes.push(item.size)
        }
      }
      await pend.flush()
      await this.deps.events.publishAll(told) // in the batch's order, one insert for all
      // The pushed uploads of every content the batch took are adopted: forgotten in one statement.
      await this.uploads.deleteUploadsByKeys([...new Set(jobs.map((j) => j.raw_key))])
      if (batch.deletions)
        removed = await corpora.detach(workspaceId, corpusId, deletions, batch.deletions.by)
      // The whole batch or nothing: what it adds in all, against what the workspace held before it.
      if (start && !batch.into?.partial) {
        await ensureRoomFor(this.deps, workspaceId, {
          before: start,
          after: await holdings(this.deps, workspaceId),
          noLarger: noneLarger,
        })
      }
      await enqueueExtraction(queue, workspaceId, jobs, sizes)
      const counts = countsOf(results, removed, jobs.length, batch.into?.unchanged ?? 0)
      if (batch.into) await this.repo.addToRun(runId, counts, [...batch.into.failures, ...refused])
      else
        await this.repo.insertRun({
          ...counts,
          id: runId,
          workspaceId,
          corpusId,
          source,
          failed: 0,
          errors: [],
          now,
        })
      await batch.into?.within?.(ids)
    })
    await corpora.purge(workspaceId, corpusId, [...stale, ...removed])
    // Committed now: rows protect what they use, and whatever none of them uses may go.
    for (const key of fresh) this.inflight.delete(key)
    for (const key of fresh) await this.dropIfUnused(key)
    return { docs: await this.rowsOf(corpusId, ids), results, run: (await this.repo.run(corpusId, runId))! }
  }

  /** The rows of a batch's registered documents (`null`: a file not registered), in its order. */
  private async rowsOf(corpusId: string, ids: (string | null)[]): Promise<DocumentRow[]> {
    const registered = ids.filter((id) => id !== null)
    const rows = await this.deps.corpora.documentsByIds(corpusId, registered)
    return registered.map((id) => rows.get(id)!)
  }

  /**
   * Registers one file in a nested unit (a savepoint) if it fits the plan's caps (with `freed`, the
   * documents its batch deletes after it), else rolls it back and answers the run error that lists it.
   */
  private async ifItFits(
    workspaceId: string,
    item: Incoming,
    existing: DocumentRow | null,
    freed: number,
    write: () => Promise<ItemDone>,
  ): Promise<ItemDone | RunError> {
    try {
      return await this.deps.store.unit(async () => {
        const before = await holdings(this.deps, workspaceId)
        const out = await write()
        const after = await holdings(this.deps, workspaceId)
        await ensureRoomFor(this.deps, workspaceId, {
          before,
          after,
          freed,
          noLarger: noLarger(item, existing),
        })
        return out
      })
    } catch (e) {
      if (!isCapRefusal(e)) throw e
      return { path: item.path, document_id: existing?.id ?? null, error: e.message, code: e.code }
    }
  }

  /** A batch's new parents, written together, knowing the contents and paths its base holds already. */
  private async pendingFor(corpusId: string, items: Incoming[], fits: boolean): Promise<PendingParents> {
    const { corpora } = this.deps
    const held = await corpora.rawKeysBySha(corpusId, [...new Set(items.map((i) => i.sha256))])
    const atPaths = await corpora.documentsByPaths(corpusId, [...new Set(items.map((i) => i.path))])
    return new PendingParents(corpora, fits, held, atPaths)
  }

  /** Registers one file of a batch (new path, new content or unchanged); inside its unit. */
  private async registerItem(
    workspaceId: string,
    corpusId: string,
    batch: RegisterBatch,
    item: Incoming,
    existing: DocumentRow | null,
    runId: string,
    now: number,
    pend: PendingParents,
  ): Promise<ItemDone> {
    const { corpora } = this.deps
    if (existing && existing.sha256 === item.sha256)
      return { id: existing.id, result: 'unchanged', stale: [], job: null, told: null }
    // Identical content already in the base (or new in this batch) is shared rather than stored twice.
    const rawKey = pend.rawKeyOf(item.sha256) ?? item.rawKey
    // A file read as it was uploaded is written extracted, with no job; a text that is the file is its raw object.
    const { text, ...rest } = item
    const extracted = text && { ...text, key: text.key ?? rawKey }
    const fields = {
      ...rest,
      ...(extracted ? { text: extracted } : {}),
      rawKey,
      source: batch.source,
      managedBy: batch.managedBy ?? null,
      now,
    }
    let id: string
    let stale: DocumentRow[] = []
    if (existing) {
      stale = [existing, ...(await corpora.sections(existing.id))]
      await corpora.replaceContent(existing.id, fields)
      pend.holds(item.sha256, rawKey)
      id = existing.id
    } else {
      id = newSortableId(this.deps.random, 'doc', now)
      await pend.add({ ...fields, id, workspaceId, corpusId })
    }
    const result = existing ? 'updated' : 'created'
    const told = existing ? 'document.updated' : 'document.created'
    if (extracted) return { id, result, stale, job: null, told }
    const job = { corpus_id: corpusId, document_id: id, raw_key: rawKey, run_id: runId, path: item.path }
    return { id, result, stale, job, told }
  }

  /**
   * Deletes an object no row, live upload or request in flight uses; for the range of a pack
   * (ranges.ts), the pack once no row names any range of it.
   */
  async dropIfUnused(key: string): Promise<boolean> {
    const pack = parseRange(key)?.pack
    if (pack)
      return this.inflight.has(key) || (await this.deps.corpora.keyInUse(key))
        ? false
        : this.dropIfUnused(pack)
    if (this.inflight.has(key) || (await this.deps.corpora.keyInUse(key))) return false
    if (await this.uploads.uploadHolds(key, this.now())) return false
    await this.deps.objects.delete(key)
    return true
  }
}
