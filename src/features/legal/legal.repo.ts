import { and, desc, eq } from 'drizzle-orm'
import type { Db } from '../../platform/db/db'
import { legalAcceptances } from './legal.tables'

/** One acceptance (times in ms). */
export type AcceptanceRow = typeof legalAcceptances.$inferSelect

/** SQL of the legal feature: its one table and nothing else. */
export class LegalRepo {
  constructor(private readonly db: Db) {}

  /** A workspace's acceptance of one version of a document, if it accepted it. */
  find(workspaceId: string, document: string, version: string): AcceptanceRow | undefined {
    const w = legalAcceptances
    return this.db
      .select()
      .from(w)
      .where(and(eq(w.workspaceId, workspaceId), eq(w.document, document), eq(w.version, version)))
      .get()
  }

  /** A workspace's latest acceptance of a document (any version), if any. */
  latest(workspaceId: string, document: string): AcceptanceRow | undefined {
    const w = legalAcceptances
    return this.db
      .select()
      .from(w)
      .where(and(eq(w.workspaceId, workspaceId), eq(w.document, document)))
      .orderBy(desc(w.acceptedAt), desc(w.id))
      .limit(1)
      .get()
  }

  /** Records an acceptance. */
  insert(row: AcceptanceRow): void {
    this.db.insert(legalAcceptances).values(row).run()
  }
}
