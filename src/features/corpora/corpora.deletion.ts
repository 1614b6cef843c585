import type { Actor } from '../../platform/auth/principal'
import type { Store } from '../../platform/db/store'
import { notFound } from '../../platform/errors/errors'
import type { Outbox } from '../../platform/events/outbox'
import type { Logger } from '../../platform/log/log'
import type { CorporaRepo, CorpusRow, DocumentRow } from './corpora.repo'

/**
 * Removes what other features keep for documents, before a delete answers. Ingest's forgets stored
 * objects (raw files, text sidecars) and extraction jobs; the engine's forgets index entries,
 * durable cartridges and warm copies. Each adds its own (`CorporaService.addPurger`) in its
 * factory: they are built after corpora and depend on it, so the hook points back down the list.
 */
export interface DocumentPurger {
  /**
   * Called after the rows are gone, and with the previous version of a document replaced in place
   * (same id, new content): forget what was derived from those rows. `carts` lists cart ids no
   * remaining row references.
   */
  purgeDocuments(workspaceId: string, corpusId: string, rows: DocumentRow[], carts: string[]): Promise<void>
  /** Called after a whole base is gone. */
  purgeCorpus(workspaceId: string, corpusId: string): Promise<void>
}

/** Whether a build (an onboarding run) of a base is in flight, for a delete's receipt. */
export type BuildProbe = (workspaceId: string, corpusId: string) => boolean | Promise<boolean>

/** What a delete did, for the caller's receipt. */
export interface DeleteReceipt {
  deleted: string[]
  buildRunning: boolean
}

/** Who deletes documents and through which path, for the deletion receipts (told with `document.deleted`). */
export interface DeletedBy {
  actor: Actor
  /** `api`: DELETE of a document; `push`: a push commit with `delete_missing`; `source`: gone at its source. */
  via: 'api' | 'push' | 'source'
}

/**
 * Deleting documents and bases: the rows and their receipts in one unit, then every registered
 * purger told what is gone, after the unit (they delete stored objects, which a unit must not
 * wait on). The deletes that must be finished before the request answers (objects, index entries,
 * cartridges) are purgers, awaited here.
 */
export class CorporaDeletion {
  /** In the order added: ingest's objects go before the engine's index entries. */
  private readonly purgers: DocumentPurger[] = []
  private buildRunning: BuildProbe = () => false

  constructor(
    private readonly deps: {
      store: Store
      events: Outbox
      repo: CorporaRepo
      log?: Logger | undefined
    },
  ) {}

  /** Adds a purger; purgers run in the order they were added. */
  addPurger(purger: DocumentPurger): void {
    this.purgers.push(purger)
  }

  /** Sets what tells whether a build of a base is running (none: never). */
  setBuildProbe(probe: BuildProbe): void {
    this.buildRunning = probe
  }

  /** Deletes a document of a base (a section: its file) with its receipt; 404 when the base has none such. */
  async deleteDocumentById(
    ws: string,
    corpusId: string,
    documentId: string,
    actor: Actor,
  ): Promise<DeleteReceipt> {
    const { repo } = this.deps
    const doc = await repo.document(corpusId, documentId)
    if (!doc) throw notFound('Document')
    // Deleting a section alone would leave its parent incomplete; the unit of deletion is the file.
    const parent = doc.parent_id ? await repo.document(corpusId, doc.parent_id) : doc
    if (!parent) throw notFound('Document')
    return this.deleteDocument(ws, corpusId, parent, actor)
  }

  /** Deletes a parent document with its sections, records its receipt and purges what it left. */
  async deleteDocument(
    workspaceId: string,
    corpusId: string,
    parent: DocumentRow,
    actor: Actor,
  ): Promise<DeleteReceipt> {
    const buildRunning = await this.buildRunning(workspaceId, corpusId)
    const rows = await this.detach(workspaceId, corpusId, [parent], { actor, via: 'api' })
    await this.purge(workspaceId, corpusId, rows)
    return { deleted: rows.map((r) => r.id), buildRunning }
  }

  /**
   * Deletes parent documents and their sections at once, tells one `document.deleted` per file in
   * the same unit (carrying its receipt, which the audit log writes), and returns every row
   * removed. A caller may run it inside its own unit; `purge` the rows after that unit.
   */
  async detach(
    workspaceId: string,
    corpusId: string,
    parents: DocumentRow[],
    by: DeletedBy,
  ): Promise<DocumentRow[]> {
    const rows: DocumentRow[] = []
    if (parents.length === 0) return rows
    const { repo, events, store } = this.deps
    const buildRunning = await this.buildRunning(workspaceId, corpusId)
    await store.unit(async () => {
      for (const p of parents) {
        const sections = await repo.sections(p.id)
        rows.push(p, ...sections)
        // A file deleted meanwhile (by another delete) is not told again.
        if (!(await repo.deleteDocument(corpusId, p.id))) continue
        const receipt = {
          filename: p.path,
          rows: 1 + sections.length,
          via: by.via,
          build_running: buildRunning,
        }
        await events.publish({
          type: 'document.deleted',
          workspaceId,
          payload: { corpusId, documentId: p.id, actor: by.actor, receipt },
        })
      }
    })
    return rows
  }

  /**
   * Tells every purger that `rows` are gone (or stale). A purger that fails is logged and skipped:
   * the rows are already gone, and the start-up sweep removes any object left behind.
   */
  async purge(workspaceId: string, corpusId: string, rows: DocumentRow[]): Promise<void> {
    if (rows.length === 0) return
    const ids = rows.map((r) => r.id)
    const named = [...new Set(rows.map((r) => r.cart_id).filter((c): c is string => c !== null))]
    const used = await this.deps.repo.cartsInUse(named, ids)
    const carts = named.filter((c) => !used.has(c))
    for (const p of this.purgers) {
      try {
        await p.purgeDocuments(workspaceId, corpusId, rows, carts)
      } catch (e) {
        this.deps.log?.error('document purge failed', { corpus_id: corpusId, error: (e as Error).message })
      }
    }
  }

  /**
   * Deletes a base with its rows, objects, index entries, cartridges and warm copies; its receipt
   * is told (`corpus.deleted`) in the unit that deletes the rows.
   */
  async deleteCorpus(workspaceId: string, base: CorpusRow, actor: Actor): Promise<DeleteReceipt> {
    const { repo, events, store } = this.deps
    const corpusId = base.id
    const buildRunning = await this.buildRunning(workspaceId, corpusId)
    const rows = await store.unit(async () => {
      const all = await repo.allDocumentRows(corpusId)
      // A base deleted meanwhile (another delete won the race) is a 404 here, its receipt told once.
      if (!(await repo.delete(workspaceId, corpusId))) throw notFound('Document base')
      const documents = all.filter((r) => r.parent_id === null).length
      const receipt = {
        name: base.name,
        rows: all.length,
        storage_bytes: base.storage_bytes,
        build_running: buildRunning,
      }
      await events.publish({
        type: 'corpus.deleted',
        workspaceId,
        payload: { corpusId, documents, actor, receipt },
      })
      return all
    })
    await this.purge(workspaceId, corpusId, rows)
    for (const p of this.purgers) {
      try {
        await p.purgeCorpus(workspaceId, corpusId)
      } catch (e) {
        this.deps.log?.error('base purge failed', { corpus_id: corpusId, error: (e as Error).message })
      }
    }
    return { deleted: rows.map((r) => r.id), buildRunning }
  }
}
