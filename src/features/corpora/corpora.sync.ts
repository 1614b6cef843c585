import { and, eq } from 'drizzle-orm'
import type { Db } from '../../platform/db/db'
import type { PassagePlace, PassageSpan, PlacesRepo } from './corpora.places.repo'
import { bySqlName, type DocumentRow } from './corpora.rows'
import { corpora, documents } from './corpora.tables'

/**
 * The reads CorporaService's synchronous twins make, on bun:sqlite's connection (SQLite only): for
 * callers that still run synchronously (the engine, a source's sync batch) until they move to the
 * store (issue 39). Each is the same query as its async original.
 */
export class CorporaSync {
  private readonly documentCols = bySqlName(documents)

  constructor(
    private readonly db: Db,
    private readonly places: PlacesRepo,
  ) {}

  workspaceOf(corpusId: string): string | null {
    const c = corpora
    return this.db.select({ w: c.workspaceId }).from(c).where(eq(c.id, corpusId)).get()?.w ?? null
  }

  document(corpusId: string, documentId: string): DocumentRow | null {
    const d = documents
    const row = this.db
      .select(this.documentCols)
      .from(d)
      .where(and(eq(d.corpusId, corpusId), eq(d.id, documentId)))
      .get()
    return (row as DocumentRow | undefined) ?? null
  }

  place(corpusId: string, spans: readonly PassageSpan[]): PassagePlace[] {
    return this.places.placeSync(this.db, corpusId, spans)
  }
}
