import type { Actor } from '../../platform/auth/principal'
import type { Clock } from '../../platform/clock/clock'
import type { Random } from '../../platform/crypto/random'
import { holdInUnit } from '../../platform/db/hold'
import type { Store } from '../../platform/db/store'
import { notFound } from '../../platform/errors/errors'
import type { Outbox } from '../../platform/events/outbox'
import type { Logger } from '../../platform/log/log'
import type { PageRequest } from '../../platform/paging/paging'
import type { PlansService } from '../plans/plans.service'
import { DocumentContent } from './corpora.content'
import type { Extraction, NewContent, NewParent } from './corpora.content.repo'
import { createBase } from './corpora.create'
import {
  type BuildProbe,
  CorporaDeletion,
  type DeletedBy,
  type DeleteReceipt,
  type DocumentPurger,
} from './corpora.deletion'
import { listBases, listDocuments, manifestCsv, usageOf } from './corpora.listing'
import type { PageRange } from './corpora.pages'
import { type PassagePlace, type PassageSpan, PlacesRepo } from './corpora.places.repo'
import { CorporaRepo, type CorpusRow, type DocumentRow } from './corpora.repo'
import { DocumentRuns } from './corpora.runs'
import { type CorpusChange, changeBits, settingsChanged } from './corpora.settings'

export type { Extraction, NewContent, NewParent, NewSection, TextAtUpload } from './corpora.content.repo'
export type { BuildProbe, DeletedBy, DeleteReceipt, DocumentPurger } from './corpora.deletion'
export type { DocumentState } from './corpora.lifecycle'
export { type PageRange, pageAt } from './corpora.pages'
export type { PassagePlace, PassageSpan } from './corpora.places.repo'
export type { CorpusRow, DocumentRow } from './corpora.repo'
export type { DocumentRuns, SettledUnits } from './corpora.runs'
export { corpusResp } from './corpora.schemas'
export type { Unit } from './corpora.units.repo'

export interface CorporaDeps {
  store: Store
  clock: Clock
  random: Random
  log?: Logger
  /** Deletions are told as `document.deleted` / `corpus.deleted` with their receipts, in the same unit. */
  events: Outbox
  /** A new base takes one of the plan's `bases` (corpora.create.ts). */
  plans?: Pick<PlansService, 'ensureRoom'>
}

/**
 * Document bases and their documents (listing, deletion, ingestion's content writes), on the store.
 * Other features ask through these methods; the rows stay behind the repos.
 */
export class CorporaService {
  private readonly repo: CorporaRepo
  private readonly content: DocumentContent
  private readonly deletion: CorporaDeletion
  private readonly places: PlacesRepo
  /** Onboarding runs' documents: what waits, what a run takes and settles (the lifecycle's moves). */
  readonly runs: DocumentRuns

  constructor(private readonly deps: CorporaDeps) {
    this.repo = new CorporaRepo(deps.store)
    this.content = new DocumentContent(deps)
    this.deletion = new CorporaDeletion({ ...deps, repo: this.repo })
    this.places = new PlacesRepo(deps.store)
    this.runs = new DocumentRuns(deps)
  }

  /** Creates an empty base (one of the plan's `bases`); new and changed documents are onboarded by themselves unless `autoOnboard` is false. */
  create(workspaceId: string, name: string, opts: { autoOnboard?: boolean } = {}): Promise<CorpusRow> {
    return createBase({ ...this.deps, repo: this.repo }, workspaceId, name, opts)
  }

  /**
   * Changes a base's settings or onboarding pause (absent fields stay; another workspace's is a 404).
   * A setting `actor` changes is told as `corpus.settings_changed` (its audit row) in the unit.
   */
  async update(workspaceId: string, id: string, p: CorpusChange, actor?: Actor): Promise<CorpusRow> {
    return this.deps.store.unit(async () => {
      const told = actor ? settingsChanged(await this.get(workspaceId, id), p, actor) : null
      await this.repo.update(workspaceId, id, changeBits(p), this.deps.clock.now().getTime())
      if (told) await this.deps.events.publish(told)
      return this.get(workspaceId, id)
    })
  }

  /** A base of the workspace; another workspace's id is a 404. */
  async get(workspaceId: string, id: string): Promise<CorpusRow> {
    const row = await this.repo.get(workspaceId, id)
    if (!row) throw notFound('Document base')
    return row
  }

  /** Whether the workspace has this base (no 404: for work that may find it deleted meanwhile). */
  async exists(workspaceId: string, id: string): Promise<boolean> {
    return (await this.repo.get(workspaceId, id)) !== null
  }

  /** Bases of a workspace, paged (page null: all); `only` narrows them (a bound key's bases). */
  list(workspaceId: string, page: PageRequest | null, only: readonly string[] | null = null) {
    return listBases(this.repo, workspaceId, page, only)
  }

  /** What each base of a workspace holds, for the usage report: documents and stored bytes (its counters). */
  usage(workspaceId: string) {
    return usageOf(this.repo, workspaceId)
  }

  /** Documents of a base (parents only unless `sections`), paged (page null: all). */
  async documents(
    workspaceId: string,
    corpusId: string,
    sections: boolean,
    page: { limit: number; after: readonly (string | number)[] | null } | null,
  ) {
    await this.get(workspaceId, corpusId)
    return listDocuments(this.repo, corpusId, sections, page)
  }

  /** Deletes a document everywhere and records its receipt; never blocked by a running build. */
  async deleteDocument(
    ws: string,
    corpusId: string,
    documentId: string,
    actor: Actor,
  ): Promise<DeleteReceipt> {
    await this.get(ws, corpusId)
    return this.deletion.deleteDocumentById(ws, corpusId, documentId, actor)
  }

  /** Deletes parent documents and sections with a receipt a file, in a unit (maybe the caller's); `purge` after it. */
  detach(
    workspaceId: string,
    corpusId: string,
    parents: DocumentRow[],
    by: DeletedBy,
  ): Promise<DocumentRow[]> {
    return this.deletion.detach(workspaceId, corpusId, parents, by)
  }

  /** Tells every purger that `rows` are gone (or stale); a failing purger is logged and skipped. Outside units. */
  purge(workspaceId: string, corpusId: string, rows: DocumentRow[]): Promise<void> {
    return this.deletion.purge(workspaceId, corpusId, rows)
  }

  /** Adds what must forget deleted documents before a delete answers (ingest's objects, the engine's index), in order. */
  addPurger(purger: DocumentPurger): void {
    this.deletion.addPurger(purger)
  }

  /** Sets what tells a delete's receipt whether a build of the base is running (onboarding knows). */
  setBuildProbe(probe: BuildProbe): void {
    this.deletion.setBuildProbe(probe)
  }

  /** Deletes a base with its rows, objects, index entries, cartridges and warm copies. */
  async deleteCorpus(workspaceId: string, corpusId: string, actor: Actor): Promise<DeleteReceipt> {
    return this.deletion.deleteCorpus(workspaceId, await this.get(workspaceId, corpusId), actor)
  }

  /** Sets the time of the base's latest sync: a source's sync or an import listed its folder to the end. */
  touchSynced(workspaceId: string, corpusId: string, at: number): Promise<void> {
    return this.set(workspaceId, corpusId, { lastSyncedAt: at }, at)
  }

  /** A base's status and whether it has a ready document, or null (another workspace's id too): the hot path of a question. */
  servingState(workspaceId: string, corpusId: string): ReturnType<CorporaRepo['servingState']> {
    return this.repo.servingState(workspaceId, corpusId)
  }

  /** One document (or section) row of a base, or null. */
  document(corpusId: string, documentId: string): Promise<DocumentRow | null> {
    return this.repo.document(corpusId, documentId)
  }

  /** Documents (or sections) of a base by id: those that exist, by id. */
  documentsByIds(corpusId: string, ids: string[]): Promise<Map<string, DocumentRow>> {
    return this.repo.documentsByIds(corpusId, ids)
  }

  /** The parent documents of a base at these paths: those that exist, by path. */
  documentsByPaths(corpusId: string, paths: string[]): Promise<Map<string, DocumentRow>> {
    return this.repo.documentsByPaths(corpusId, paths)
  }
  /** The parent document of a base at a relative path, or null. */
  documentByPath(corpusId: string, path: string): Promise<DocumentRow | null> {
    return this.repo.documentByPath(corpusId, path)
  }

  /** The pages of a parent document as ranges of its text; null when it has none (not a PDF, or extracted before). */
  pageRanges(parent: Pick<DocumentRow, 'id' | 'text_key'>): Promise<PageRange[] | null> {
    return this.places.pages(parent.id, parent.text_key)
  }

  /** Where passages of a base's sections lie in their documents: page, section title, offsets in its text. */
  placePassages(corpusId: string, spans: PassageSpan[]): Promise<PassagePlace[]> {
    return this.places.place(corpusId, spans)
  }

  /** A document's section rows in order. */
  sections(parentId: string): Promise<DocumentRow[]> {
    return this.repo.sections(parentId)
  }

  /** Every row of a base, parents and sections. */
  documentRows(corpusId: string): Promise<DocumentRow[]> {
    return this.repo.allDocumentRows(corpusId)
  }

  /** Parent documents of a base, optionally only those under a folder prefix (`a/b/`), by path. */
  parentDocuments(corpusId: string, prefix = ''): Promise<DocumentRow[]> {
    return this.repo.parents(corpusId, prefix)
  }

  /** The stored object of the base's content with this SHA-256, or null: identical files share it. */
  rawKeyBySha(corpusId: string, sha256: string): Promise<string | null> {
    return this.content.repo.rawKeyBySha(corpusId, sha256)
  }

  /** `rawKeyBySha` for many contents at once: the stored object of each the base holds. */
  rawKeysBySha(corpusId: string, shas: string[]): Promise<Map<string, string>> {
    return this.content.repo.rawKeysBySha(corpusId, shas)
  }

  /** Whether any document row still uses an object, as its raw file or its text sidecar. */
  keyInUse(key: string): Promise<boolean> {
    return this.content.repo.keyInUse(key)
  }

  /** Adds parent documents with fresh content (`uploaded`), several a statement, in a unit. */
  insertParents(rows: NewParent[]): Promise<void> {
    return this.content.insertParents(rows)
  }

  /** Gives a parent document new content in place (same id; any live state → `uploaded`), in a unit. */
  replaceContent(documentId: string, r: NewContent): Promise<void> {
    return this.content.replaceContent(documentId, r)
  }

  /**
   * Records a finished extraction of a parent document (→ `extracted`; a refused move is a 409), in a
   * unit, if it still has the raw object the extraction read (`parent.raw_key`): false when not.
   */
  setExtracted(parent: DocumentRow, x: Extraction): Promise<boolean> {
    return this.content.setExtracted(parent, x)
  }

  /**
   * Marks a document `failed` with the reason the user will see, and tells it (`document.failed`), in
   * a unit, if it still has the raw object `rawKey` and may fail: false when nothing changed.
   */
  markFailed(
    documentId: string,
    rawKey: string,
    error: string,
    now: number,
    contentType?: string,
  ): Promise<boolean> {
    return this.content.markFailed(documentId, rawKey, error, now, contentType)
  }

  /** Sets the base's description. */
  setDescription(ws: string, corpusId: string, description: string | null, at: number): Promise<void> {
    return this.set(ws, corpusId, { description }, at)
  }

  /** Sets the base's status (onboarding moves it through training to ready or failed). */
  setStatus(workspaceId: string, corpusId: string, status: CorpusRow['status'], at: number): Promise<void> {
    return this.set(workspaceId, corpusId, { status }, at)
  }

  /** Records whether the base's cartridges are built (onboarding's deferred job). */
  setCartStatus(ws: string, corpusId: string, cartStatus: CorpusRow['cart_status'], at: number) {
    return this.set(ws, corpusId, { cartStatus }, at)
  }

  /** Makes the calling unit the only one starting or ending a run of this base until it ends (db/hold.ts). */
  holdRuns(corpusId: string): Promise<void> {
    return holdInUnit(this.deps.store, `runs:${corpusId}`)
  }

  /** The workspace a base belongs to, or null (start-up work only: no tenant check). */
  workspaceOf(corpusId: string): Promise<string | null> {
    return this.repo.workspaceOf(corpusId)
  }

  /** The CSV manifest of documents uploaded by hand, CLI or wizard picker. */
  async manifestCsv(workspaceId: string, corpusId: string): Promise<string> {
    await this.get(workspaceId, corpusId)
    return manifestCsv(await this.repo.documentsBySource(corpusId, 'upload'))
  }

  /** Writes some of a base's columns in a unit of its own (or the caller's). */
  private set(ws: string, corpusId: string, p: BaseChange, at: number): Promise<void> {
    return this.deps.store.unit(() => this.repo.update(ws, corpusId, p, at))
  }
}

type BaseChange = Parameters<CorporaRepo['update']>[2]
