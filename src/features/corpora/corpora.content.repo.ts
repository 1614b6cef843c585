import { and, eq, inArray, isNull } from 'drizzle-orm'
import type { Store } from '../../platform/db/store'
import { rangeBounds } from '../../platform/storage/ranges'
import { ExtractionWrites, holdsCopy, parentInserts, sectionInserts } from './corpora.extractions.repo'
import { statusesInto } from './corpora.lifecycle'
import { encodePageRanges, type PageRange } from './corpora.pages'
import {
  corporaTables,
  type DocumentRow,
  type NewContent,
  type NewParent,
  type NewSection,
} from './corpora.rows'

export type { NewContent, NewParent, NewSection, TextAtUpload } from './corpora.rows'

/** What a finished extraction of a parent document produced. */
export interface Extraction {
  textKey: string
  textChars: number
  /** Bytes of the sidecar as stored (counted in the base's storage). */
  textBytes: number
  contentType: string
  title: string | null
  cartId: string | null
  sections: NewSection[]
  /** A PDF's pages as ranges of the sidecar; null for documents without pages. */
  pageRanges: PageRange[] | null
  /** Ingest's EXTRACTOR_VERSION of the extraction that made them. */
  extractorVersion: number
  now: number
}

/**
 * Data functions that give documents their content: registering new or replaced files, recording
 * extraction results, and the questions deletion and dedup ask about stored objects. Each write is
 * one of the lifecycle's moves: the states it may come from are in its `WHERE`, and the rows it
 * moved are counted (corpora.lifecycle.ts). The service runs the writes in units.
 */
export class DocumentContentRepo {
  private readonly t
  /** setExtracted's statements (every file an upload extracts), built once per handle. */
  private readonly extractions
  /** insertParents' and insertSections' statements, prepared once per row count. */
  private readonly parents
  private readonly sections

  constructor(private readonly store: Store) {
    this.t = corporaTables(store)
    this.extractions = new ExtractionWrites(store, this.t)
    this.parents = parentInserts(store, this.t)
    this.sections = sectionInserts(store, this.t)
  }

  private get db() {
    return this.store.db
  }

  /** The stored object of a parent document of the base with this content, or null (dedup). A failed
   * document is never a source: its object may not hold what its SHA-256 says (a bad presigned PUT). */
  async rawKeyBySha(corpusId: string, sha256: string): Promise<string | null> {
    const { d } = this.t
    const rows = await this.db
      .select({ rawKey: d.rawKey })
      .from(d)
      .where(and(eq(d.sha256, sha256), holdsCopy(d, corpusId)))
      .limit(1)
    return rows[0]?.rawKey ?? null
  }

  /**
   * `rawKeyBySha` for many contents, in one statement: the stored object of each that the
   * base holds; absent ones are not in the map.
   */
  async rawKeysBySha(corpusId: string, shas: string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>()
    const rows = await this.extractions.rawKeysOf.execute({ corpus: corpusId, shas: JSON.stringify(shas) })
    for (const r of rows)
      if (r.sha256 !== null && r.rawKey !== null && !out.has(r.sha256)) out.set(r.sha256, r.rawKey)
    return out
  }

  /** Whether any row still uses an object, as its raw file or its text sidecar. */
  async keyInUse(key: string): Promise<boolean> {
    // A pack is in use while a row names any range of it (`<pack>#<offset>+<length>`, ranges.ts).
    const [lower, upper] = rangeBounds(key)
    return (await this.extractions.keyUse.execute({ key, lower, upper })).length > 0
  }

  /** Inserts new parent documents with fresh (not yet extracted) content, many rows a statement. */
  async insertParents(rows: NewParent[]): Promise<void> {
    await this.parents.run(rows)
    // A text of several sections, read as it was uploaded, has its section rows too: all of them together.
    await this.sections.run(
      rows.flatMap(
        (r) =>
          r.text?.sections.map((section) => ({ parent: r, textKey: r.text!.key, section, now: r.now })) ?? [],
      ),
    )
  }

  /**
   * Gives a parent document new content in place (same id): its sections go and everything derived
   * from the old content is reset until the new content is extracted (or set from its text, read as
   * it was uploaded). Whoever writes the content now manages the document (a hand upload over a
   * pushed file takes it from push). False when the document is not there (or in no state that may
   * take new content).
   */
  async replaceContent(id: string, r: NewContent): Promise<boolean> {
    const { d } = this.t
    await this.db.delete(d).where(eq(d.parentId, id))
    const moved = await this.db
      .update(d)
      .set({
        size: r.size,
        contentType: r.text?.contentType ?? r.contentType,
        sha256: r.sha256,
        status: 'pending',
        error: null,
        source: r.source,
        managedBy: r.managedBy,
        rawKey: r.rawKey,
        textKey: r.text?.key ?? null,
        textChars: r.text?.chars ?? 0,
        textBytes: r.text?.bytes ?? 0,
        sectionCount: Math.max(1, r.text?.sections.length ?? 0),
        sectionTitle: r.text?.title ?? null,
        cartId: r.text?.cartId ?? null,
        pageRanges: null,
        extractorVersion: r.text?.extractorVersion ?? null,
        updatedAt: r.now,
      })
      .where(and(eq(d.id, id), isNull(d.parentId), inArray(d.status, statusesInto('uploaded'))))
      .returning({ id: d.id, workspaceId: d.workspaceId, corpusId: d.corpusId, path: d.path })
    const [row] = moved
    if (row && r.text?.sections.length)
      await this.insertSections({ ...r, ...row }, r.text.key, r.text.sections, r.now)
    return moved.length > 0
  }

  /**
   * Records a finished extraction of the raw object `parent` had when read (`parent.raw_key`): the
   * sidecar, sizes and sections (replacing earlier ones). The update is conditional on that raw key
   * and on a state that may go to `extracted`, so nothing is written, on either engine, when the
   * document was deleted meanwhile (`gone`), given other content (`superseded`: the newer content's
   * own extraction records it), or moved to a state that may not go to `extracted` (`refused`).
   */
  async setExtracted(
    parent: DocumentRow,
    x: Extraction,
  ): Promise<'done' | 'gone' | 'superseded' | 'refused'> {
    const { d } = this.t
    const moved = await this.extractions.update(parent.raw_key === null).execute({
      id: parent.id,
      raw: parent.raw_key,
      textKey: x.textKey,
      textChars: x.textChars,
      textBytes: x.textBytes,
      contentType: x.contentType,
      title: x.title,
      cartId: x.cartId,
      sectionCount: Math.max(1, x.sections.length),
      pageRanges: x.pageRanges ? encodePageRanges(x.pageRanges) : null,
      extractorVersion: x.extractorVersion,
      now: x.now,
    })
    if (moved.length === 0) {
      const [there] = await this.db.select({ rawKey: d.rawKey }).from(d).where(eq(d.id, parent.id))
      if (!there) return 'gone'
      return there.rawKey !== parent.raw_key ? 'superseded' : 'refused'
    }
    await this.extractions.dropSections.execute({ parent: parent.id })
    const of = {
      id: parent.id,
      workspaceId: parent.workspace_id,
      corpusId: parent.corpus_id,
      path: parent.path,
      source: parent.source,
    }
    await this.insertSections(of, x.textKey, x.sections, x.now)
    return 'done'
  }

  /** Inserts a parent's section rows, each a slice of its text at `textKey`, many rows a statement. */
  private async insertSections(
    parent: Pick<NewParent, 'id' | 'workspaceId' | 'corpusId' | 'path' | 'source'>,
    textKey: string,
    sections: NewSection[],
    now: number,
  ): Promise<void> {
    await this.sections.run(sections.map((section) => ({ parent, textKey, section, now })))
  }

  /**
   * Marks a document failed with the reason the user will see, if it still has the raw object
   * `rawKey` (the one whose reading failed) and a state that may fail: its base and workspace, or
   * null when nothing changed (deleted, given other content, or in no such state meanwhile).
   */
  async setFailed(
    id: string,
    rawKey: string,
    error: string,
    now: number,
    contentType: string | undefined,
  ): Promise<{ workspaceId: string; corpusId: string } | null> {
    const { d } = this.t
    const rows = await this.db
      .update(d)
      .set({
        status: 'failed',
        error,
        ...(contentType === undefined ? {} : { contentType }),
        updatedAt: now,
      })
      .where(and(eq(d.id, id), eq(d.rawKey, rawKey), inArray(d.status, statusesInto('failed'))))
      .returning({ workspaceId: d.workspaceId, corpusId: d.corpusId })
    return rows[0] ?? null
  }
}
