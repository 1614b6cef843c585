import { type Clock, iso } from '../../platform/clock/clock'
import { newId, type Random } from '../../platform/crypto/random'
import type { Db } from '../../platform/db/db'
import { fail, notFound } from '../../platform/errors/errors'
import type { Logger } from '../../platform/log/log'
import { keysetPage } from '../../platform/paging/paging'
import type { AuditActor, AuditService } from '../audit/audit.service'
import { DocumentContentRepo } from './corpora.content'
import { CorporaRepo, type CorpusRow, type DocumentRow } from './corpora.repo'

export type { NewContent, NewSection } from './corpora.content'
export type { CorpusRow, DocumentRow } from './corpora.repo'
export { DocumentResp } from './corpora.schemas'

/**
 * Removes what other features keep for documents, before a delete answers. Ingest's forgets stored
 * objects (raw files, text sidecars) and extraction jobs; the engine's forgets index entries,
 * durable cartridges and warm copies. createApp hands them to this service (`purgers`).
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

export interface CorporaDeps {
  db: Db
  clock: Clock
  random: Random
  log?: Logger
  /** Where every deletion writes its receipt, in the transaction that deletes. */
  audit: AuditService
  /**
   * Features that must forget deleted documents before the delete answers (ingest's stored objects,
   * the engine's index), in order; asked at delete time, as they are built after this service.
   */
  purgers?: () => DocumentPurger[]
  /** Whether a build (an onboarding run) of a base is in flight, for the delete's receipt. */
  buildRunning?: (workspaceId: string, corpusId: string) => boolean
}

/** What a delete did, for the caller's receipt. */
export interface DeleteReceipt {
  deleted: string[]
  buildRunning: boolean
}

/** Who deletes documents and through which path, for the deletion receipts in the audit log. */
export interface DeletedBy {
  actor: AuditActor
  /** `api`: DELETE of a document; `push`: a push commit with `delete_missing`. */
  via: 'api' | 'push'
}

const ts = (ms: number | null) => (ms === null ? null : iso(new Date(ms)))

/** The wire shape of a base. */
export function corpusResp(r: CorpusRow) {
  return {
    id: r.id,
    name: r.name,
    source_type: r.source_type,
    status: r.status,
    n_documents: r.n_documents,
    documents_ready: r.documents_ready,
    documents_onboarding: r.documents_onboarding,
    documents_failed: r.documents_failed,
    last_synced_at: ts(r.last_synced_at),
    description: r.description,
    created_at: iso(new Date(r.created_at)),
    updated_at: iso(new Date(r.updated_at)),
  }
}

/** The wire shape of a document or section. */
export function documentResp(d: DocumentRow) {
  return {
    id: d.id,
    corpus_id: d.corpus_id,
    filename: d.path,
    size: d.size,
    content_type: d.content_type,
    sha256: d.sha256,
    status: d.status,
    error: d.error,
    section_count: d.section_count,
    parent_id: d.parent_id,
    cart_id: d.cart_id,
    title: d.section_title,
    source: d.source,
    created_at: iso(new Date(d.created_at)),
    updated_at: iso(new Date(d.updated_at)),
  }
}

/** Document bases: create, read, list, delete, and the document listing and deletion. */
export class CorporaService {
  readonly repo: CorporaRepo
  /** Writes of document content (ingestion) and the object-use questions deletion asks. */
  readonly content: DocumentContentRepo
  private readonly purgers: () => DocumentPurger[]
  private readonly buildRunning: (workspaceId: string, corpusId: string) => boolean

  constructor(private readonly deps: CorporaDeps) {
    this.repo = new CorporaRepo(deps.db)
    this.content = new DocumentContentRepo(deps.db)
    this.purgers = deps.purgers ?? (() => [])
    this.buildRunning = deps.buildRunning ?? (() => false)
  }

  /** Creates an empty base. */
  create(workspaceId: string, name: string): CorpusRow {
    const trimmed = name.trim()
    if (!trimmed) {
      throw fail('validation_error', 'The name must not be empty.', [
        { loc: ['body', 'name'], msg: 'The name must not be empty', type: 'string_too_short' },
      ])
    }
    const id = newId(this.deps.random, 'cor')
    this.repo.insert({ id, workspaceId, name: trimmed, now: this.deps.clock.now().getTime() })
    return this.repo.get(workspaceId, id)!
  }

  /** A base of the workspace; another workspace's id is a 404. */
  get(workspaceId: string, id: string): CorpusRow {
    const row = this.repo.get(workspaceId, id)
    if (!row) throw notFound('Document base')
    return row
  }

  /** Bases of a workspace, paged (page null: all). */
  list(workspaceId: string, page: { limit: number; after: readonly (string | number)[] | null } | null) {
    const total = this.repo.countAll(workspaceId)
    if (!page) return { items: this.repo.listAll(workspaceId).map(corpusResp), total, nextCursor: null }
    const rows = this.repo.listPage(workspaceId, page.after, page.limit)
    return keysetPage(rows, page.limit, (r) => [r.created_at, r.id], corpusResp, total)
  }

  /**
   * What each base of a workspace holds, for the usage report: its documents and the bytes they
   * occupy in the object store (raw objects once each, text sidecars), read from its counters.
   */
  usage(workspaceId: string): { id: string; name: string; documents: number; storageBytes: number }[] {
    return this.repo
      .listAll(workspaceId)
      .map((r) => ({ id: r.id, name: r.name, documents: r.n_documents, storageBytes: r.storage_bytes }))
  }

  /** Documents of a base (parents only unless `sections`), paged (page null: all). */
  documents(
    workspaceId: string,
    corpusId: string,
    sections: boolean,
    page: { limit: number; after: readonly (string | number)[] | null } | null,
  ) {
    this.get(workspaceId, corpusId)
    const total = this.repo.countDocuments(corpusId, sections)
    const rows = this.repo.documentsPage(corpusId, sections, page?.after ?? null, page?.limit ?? null)
    if (!page) return { items: rows.map(documentResp), total, nextCursor: null }
    return keysetPage(rows, page.limit, (r) => [r.created_at, r.id], documentResp, total)
  }

  /** Deletes a document everywhere and records its receipt; never blocked by a running build. */
  async deleteDocument(
    workspaceId: string,
    corpusId: string,
    documentId: string,
    actor: AuditActor,
  ): Promise<DeleteReceipt> {
    this.get(workspaceId, corpusId)
    const doc = this.repo.document(corpusId, documentId)
    if (!doc) throw notFound('Document')
    // Deleting a section alone would leave its parent incomplete; the unit of deletion is the file.
    const parent = doc.parent_id ? this.repo.document(corpusId, doc.parent_id)! : doc
    const buildRunning = this.buildRunning(workspaceId, corpusId)
    const rows = this.detach(workspaceId, corpusId, [parent], { actor, via: 'api' })
    await this.purge(workspaceId, corpusId, rows)
    return { deleted: rows.map((r) => r.id), buildRunning }
  }

  /**
   * Deletes parent documents and their sections at once, writes one deletion receipt per file in
   * the same transaction, and returns every row removed. Synchronous, so a caller may run it inside
   * its own transaction; `purge` the rows afterwards.
   */
  detach(workspaceId: string, corpusId: string, parents: DocumentRow[], by: DeletedBy): DocumentRow[] {
    const rows: DocumentRow[] = []
    if (parents.length === 0) return rows
    const buildRunning = this.buildRunning(workspaceId, corpusId)
    this.deps.db.$client.transaction(() => {
      for (const p of parents) {
        const sections = this.repo.sections(p.id)
        rows.push(p, ...sections)
        if (!this.repo.deleteDocument(corpusId, p.id)) continue
        this.deps.audit.record({
          workspaceId,
          actor: by.actor,
          action: 'document.deleted',
          target: { type: 'document', id: p.id },
          details: {
            corpus_id: corpusId,
            filename: p.path,
            rows: 1 + sections.length,
            via: by.via,
            build_running: buildRunning,
          },
        })
      }
    })()
    return rows
  }

  /**
   * Tells every purger that `rows` are gone (or stale). A purger that fails is logged and skipped:
   * the rows are already gone, and the start-up sweep removes any object left behind.
   */
  async purge(workspaceId: string, corpusId: string, rows: DocumentRow[]): Promise<void> {
    if (rows.length === 0) return
    const ids = rows.map((r) => r.id)
    const carts = [...new Set(rows.map((r) => r.cart_id).filter((c): c is string => c !== null))].filter(
      (c) => this.repo.cartUsers(c, ids) === 0,
    )
    for (const p of this.purgers()) {
      try {
        await p.purgeDocuments(workspaceId, corpusId, rows, carts)
      } catch (e) {
        this.deps.log?.error('document purge failed', { corpus_id: corpusId, error: (e as Error).message })
      }
    }
  }

  /**
   * Deletes a base with its rows, objects, index entries, cartridges and warm copies; its receipt
   * is written in the transaction that deletes the rows.
   */
  async deleteCorpus(workspaceId: string, corpusId: string, actor: AuditActor): Promise<DeleteReceipt> {
    const base = this.get(workspaceId, corpusId)
    const buildRunning = this.buildRunning(workspaceId, corpusId)
    let rows: DocumentRow[] = []
    this.deps.db.$client.transaction(() => {
      rows = this.repo.allDocumentRows(corpusId)
      if (!this.repo.delete(workspaceId, corpusId)) throw notFound('Document base')
      this.deps.audit.record({
        workspaceId,
        actor,
        action: 'corpus.deleted',
        target: { type: 'corpus', id: corpusId },
        details: {
          name: base.name,
          documents: rows.filter((r) => r.parent_id === null).length,
          rows: rows.length,
          storage_bytes: base.storage_bytes,
          build_running: buildRunning,
        },
      })
    })()
    await this.purge(workspaceId, corpusId, rows)
    for (const p of this.purgers()) {
      try {
        await p.purgeCorpus(workspaceId, corpusId)
      } catch (e) {
        this.deps.log?.error('base purge failed', { corpus_id: corpusId, error: (e as Error).message })
      }
    }
    return { deleted: rows.map((r) => r.id), buildRunning }
  }

  /** Sets the time of the base's latest sync (an upload, a push, an import). */
  touchSynced(workspaceId: string, corpusId: string, at: number): void {
    this.repo.update(workspaceId, corpusId, { lastSyncedAt: at }, at)
  }

  /** A base's status and whether it has a ready document, or null (another workspace's id too): the hot path of a question. */
  servingState(
    workspaceId: string,
    corpusId: string,
  ): { status: CorpusRow['status']; anyReady: boolean } | null {
    return this.repo.servingState(workspaceId, corpusId)
  }

  /** One document (or section) row of a base, or null. */
  document(corpusId: string, documentId: string): DocumentRow | null {
    return this.repo.document(corpusId, documentId)
  }

  /** Every row of a base, parents and sections. */
  documentRows(corpusId: string): DocumentRow[] {
    return this.repo.allDocumentRows(corpusId)
  }

  /** Parent documents of a base, optionally only those under a folder prefix (`a/b/`), by path. */
  parentDocuments(corpusId: string, prefix = ''): DocumentRow[] {
    return this.repo.parents(corpusId, prefix)
  }

  /** Sets the base's description. */
  setDescription(workspaceId: string, corpusId: string, description: string | null, at: number): void {
    this.repo.update(workspaceId, corpusId, { description }, at)
  }

  /** Sets the base's status (onboarding moves it through training to ready or failed). */
  setStatus(workspaceId: string, corpusId: string, status: CorpusRow['status'], at: number): void {
    this.repo.update(workspaceId, corpusId, { status }, at)
  }

  /** The workspace a base belongs to, or null (start-up work only: no tenant check). */
  workspaceOf(corpusId: string): string | null {
    return this.repo.workspaceOf(corpusId)
  }

  /** The CSV manifest of documents uploaded by hand, CLI or wizard picker. */
  manifestCsv(workspaceId: string, corpusId: string): string {
    this.get(workspaceId, corpusId)
    const rows = this.repo.documentsBySource(corpusId, 'upload')
    const cell = (v: string | number | null) => {
      const s = v === null ? '' : String(v)
      // Quote every text cell, and defuse spreadsheet formulas (CSV injection).
      const safe = /^[=+\-@\t\r]/.test(s) ? `'${s}` : s
      return typeof v === 'number' ? s : `"${safe.replace(/"/g, '""')}"`
    }
    const lines = ['filename,size,sha256,content_type,status,document_id,updated_at']
    for (const d of rows) {
      lines.push(
        [d.path, d.size, d.sha256, d.content_type, d.status, d.id, iso(new Date(d.updated_at))]
          .map(cell)
          .join(','),
      )
    }
    return `${lines.join('\r\n')}\r\n`
  }
}
