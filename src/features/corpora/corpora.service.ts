import type { Actor } from '../../platform/auth/principal'
import type { Clock } from '../../platform/clock/clock'
import type { Random } from '../../platform/crypto/random'
import type { Db } from '../../platform/db/db'
import { notFound } from '../../platform/errors/errors'
import type { Outbox } from '../../platform/events/outbox'
import type { Logger } from '../../platform/log/log'
import { keysetPage, type PageRequest } from '../../platform/paging/paging'
import type { PlansService } from '../plans/plans.service'
import { DocumentContentRepo, type Extraction, type NewContent, type NewParent } from './corpora.content.repo'
import { createBase } from './corpora.create'
import {
  type BuildProbe,
  CorporaDeletion,
  type DeletedBy,
  type DeleteReceipt,
  type DocumentPurger,
} from './corpora.deletion'
import { assertMove, stateOf } from './corpora.lifecycle'
import { manifestCsv, pageOfSome } from './corpora.listing'
import type { PageRange } from './corpora.pages'
import { type PassagePlace, type PassageSpan, PlacesRepo } from './corpora.places.repo'
import { CorporaRepo, type CorpusRow, type DocumentRow } from './corpora.repo'
import { DocumentRuns } from './corpora.runs'
import { corpusResp, documentResp } from './corpora.schemas'
import { type CorpusChange, changeBits, settingsChanged } from './corpora.settings'

export type { Extraction, NewContent, NewParent, NewSection } from './corpora.content.repo'
export type { BuildProbe, DeletedBy, DeleteReceipt, DocumentPurger } from './corpora.deletion'
export type { DocumentState } from './corpora.lifecycle'
export { type PageRange, pageAt } from './corpora.pages'
export type { PassagePlace, PassageSpan } from './corpora.places.repo'
export type { CorpusRow, DocumentRow } from './corpora.repo'
export type { DocumentRuns, SettledUnits } from './corpora.runs'
export { corpusResp } from './corpora.schemas'
export type { Unit } from './corpora.units.repo'

export interface CorporaDeps {
  db: Db
  clock: Clock
  random: Random
  log?: Logger
  /** Deletions are told as `document.deleted` / `corpus.deleted` with their receipts, in the same transaction. */
  events: Outbox
  /** A new base takes one of the plan's `bases` (corpora.create.ts). */
  plans?: Pick<PlansService, 'ensureRoom'>
}

/**
 * Document bases: create, read, list, delete, and their documents: listing, deletion, and the
 * content writes ingestion makes (registering files, recording extractions). Other features ask
 * through these methods; the rows stay behind the repos.
 */
export class CorporaService {
  private readonly repo: CorporaRepo
  private readonly content: DocumentContentRepo
  private readonly deletion: CorporaDeletion
  private readonly places: PlacesRepo
  /** Onboarding runs' documents: what waits, what a run takes and settles (the lifecycle's moves). */
  readonly runs: DocumentRuns

  constructor(private readonly deps: CorporaDeps) {
    this.repo = new CorporaRepo(deps.db)
    this.content = new DocumentContentRepo(deps.db)
    this.deletion = new CorporaDeletion({ ...deps, repo: this.repo })
    this.places = new PlacesRepo(deps.db)
    this.runs = new DocumentRuns(deps)
  }

  /** Creates an empty base (one of the plan's `bases`); new and changed documents are onboarded by themselves unless `autoOnboard` is false. */
  create(workspaceId: string, name: string, opts: { autoOnboard?: boolean } = {}): CorpusRow {
    return createBase({ ...this.deps, repo: this.repo }, workspaceId, name, opts)
  }

  /**
   * Changes a base's settings or onboarding pause (absent fields stay; another workspace's is a 404).
   * A setting `actor` changes is told as `corpus.settings_changed` (its audit row) in the transaction.
   */
  update(workspaceId: string, id: string, p: CorpusChange, actor?: Actor) {
    const told = actor ? settingsChanged(this.get(workspaceId, id), p, actor) : null
    this.deps.db.transaction(() => {
      this.repo.update(workspaceId, id, changeBits(p), this.deps.clock.now().getTime())
      if (told) this.deps.events.emit(this.deps.db, told)
    })
    return this.get(workspaceId, id)
  }

  /** A base of the workspace; another workspace's id is a 404. */
  get(workspaceId: string, id: string): CorpusRow {
    const row = this.repo.get(workspaceId, id)
    if (!row) throw notFound('Document base')
    return row
  }

  /** Whether the workspace has this base (no 404: for work that may find it deleted meanwhile). */
  exists(workspaceId: string, id: string): boolean {
    return this.repo.get(workspaceId, id) !== null
  }

  /** Bases of a workspace, paged (page null: all); `only` narrows them (a bound key's bases). */
  list(workspaceId: string, page: PageRequest | null, only: readonly string[] | null = null) {
    const some = only?.map((id) => this.repo.get(workspaceId, id)).filter((r) => r !== null)
    if (some) return pageOfSome(some, page)
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
    actor: Actor,
  ): Promise<DeleteReceipt> {
    this.get(workspaceId, corpusId)
    const doc = this.repo.document(corpusId, documentId)
    if (!doc) throw notFound('Document')
    // Deleting a section alone would leave its parent incomplete; the unit of deletion is the file.
    const parent = doc.parent_id ? this.repo.document(corpusId, doc.parent_id)! : doc
    return this.deletion.deleteDocument(workspaceId, corpusId, parent, actor)
  }

  /**
   * Deletes parent documents and their sections at once, writes one deletion receipt per file in
   * the same transaction, and returns every row removed. Synchronous, so a caller may run it inside
   * its own transaction; `purge` the rows afterwards.
   */
  detach(workspaceId: string, corpusId: string, parents: DocumentRow[], by: DeletedBy): DocumentRow[] {
    return this.deletion.detach(workspaceId, corpusId, parents, by)
  }

  /** Tells every purger that `rows` are gone (or stale); a failing purger is logged and skipped. */
  purge(workspaceId: string, corpusId: string, rows: DocumentRow[]): Promise<void> {
    return this.deletion.purge(workspaceId, corpusId, rows)
  }

  /**
   * Adds what must forget deleted documents before a delete answers (ingest's stored objects, the
   * engine's index); they run in the order added. The features that keep such things add theirs.
   */
  addPurger(purger: DocumentPurger): void {
    this.deletion.addPurger(purger)
  }

  /** Sets what tells a delete's receipt whether a build of the base is running (onboarding knows). */
  setBuildProbe(probe: BuildProbe): void {
    this.deletion.setBuildProbe(probe)
  }

  /** Deletes a base with its rows, objects, index entries, cartridges and warm copies. */
  async deleteCorpus(workspaceId: string, corpusId: string, actor: Actor): Promise<DeleteReceipt> {
    return this.deletion.deleteCorpus(workspaceId, this.get(workspaceId, corpusId), actor)
  }

  /** Sets the time of the base's latest sync: a source's sync or an import listed its folder to the end. */
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

  /** The parent document of a base at a relative path, or null. */
  documentByPath(corpusId: string, path: string): DocumentRow | null {
    return this.repo.documentByPath(corpusId, path)
  }

  /** The pages of a parent document as ranges of its text; null when it has none (not a PDF, or extracted before). */
  pageRanges(parent: Pick<DocumentRow, 'id' | 'text_key'>): PageRange[] | null {
    return this.places.pages(parent.id, parent.text_key)
  }

  /**
   * Where passages of a base's sections lie in their documents: the page, the section's title and
   * the offsets in the document's text (the engine's sources carry them). One statement for all.
   */
  placePassages(corpusId: string, spans: PassageSpan[]): PassagePlace[] {
    return this.places.place(corpusId, spans)
  }

  /** A document's section rows in order. */
  sections(parentId: string): DocumentRow[] {
    return this.repo.sections(parentId)
  }

  /** Every row of a base, parents and sections. */
  documentRows(corpusId: string): DocumentRow[] {
    return this.repo.allDocumentRows(corpusId)
  }

  /** Parent documents of a base, optionally only those under a folder prefix (`a/b/`), by path. */
  parentDocuments(corpusId: string, prefix = ''): DocumentRow[] {
    return this.repo.parents(corpusId, prefix)
  }

  /** The stored object of the base's content with this SHA-256, or null: identical files share it. */
  rawKeyBySha(corpusId: string, sha256: string): string | null {
    return this.content.rawKeyBySha(corpusId, sha256)
  }

  /** `rawKeyBySha` for many contents at once: the stored object of each the base holds. */
  rawKeysBySha(corpusId: string, shas: string[]): Map<string, string> {
    return this.content.rawKeysBySha(corpusId, shas)
  }

  /** Whether any document row still uses an object, as its raw file or its text sidecar. */
  keyInUse(key: string): boolean {
    return this.content.keyInUse(key)
  }

  /** Adds parent documents with fresh content (`uploaded`: waiting for their extraction), several a statement. */
  insertParents(rows: NewParent[]): void {
    this.content.insertParents(rows)
  }

  /** Gives a parent document new content in place (same id; any live state → `uploaded`): its sections and derived state go. */
  replaceContent(documentId: string, r: NewContent): void {
    this.content.replaceContent(documentId, r)
  }

  /** Records a finished extraction of a parent document (→ `extracted`): its text sidecar, sizes and sections. */
  setExtracted(parent: DocumentRow, x: Extraction): void {
    assertMove(stateOf({ status: parent.status, textKey: parent.text_key }), 'extracted', parent.id)
    this.content.setExtracted(parent, x)
  }

  /** Marks a document `failed` with the reason the user will see, and tells it (`document.failed`). */
  markFailed(documentId: string, error: string, now: number, contentType?: string): void {
    this.content.setFailed(documentId, error, now, contentType, this.deps.events)
  }

  /** Sets the base's description. */
  setDescription(workspaceId: string, corpusId: string, description: string | null, at: number): void {
    this.repo.update(workspaceId, corpusId, { description }, at)
  }

  /** Sets the base's status (onboarding moves it through training to ready or failed). */
  setStatus(workspaceId: string, corpusId: string, status: CorpusRow['status'], at: number): void {
    this.repo.update(workspaceId, corpusId, { status }, at)
  }

  /** Records whether the base's cartridges are built (onboarding's deferred job). */
  setCartStatus(ws: string, corpusId: string, cartStatus: CorpusRow['cart_status'], at: number): void {
    this.repo.update(ws, corpusId, { cartStatus }, at)
  }

  /** The workspace a base belongs to, or null (start-up work only: no tenant check). */
  workspaceOf(corpusId: string): string | null {
    return this.repo.workspaceOf(corpusId)
  }

  /** The CSV manifest of documents uploaded by hand, CLI or wizard picker. */
  manifestCsv(workspaceId: string, corpusId: string): string {
    this.get(workspaceId, corpusId)
    return manifestCsv(this.repo.documentsBySource(corpusId, 'upload'))
  }
}
