import { and, desc, eq } from 'drizzle-orm'
import type { Store } from '../../platform/db/store'
import { legalAcceptances } from './legal.tables'

/** One acceptance (times in ms). */
export type AcceptanceRow = typeof legalAcceptances.$inferSelect

/** SQL of the legal feature: its one table and nothing else, on either engine (docs/data-layer.md). */
export class LegalRepo {
  constructor(private readonly store: Store) {}

  /** A workspace's acceptance of one version of a document, if it accepted it. */
  async find(workspaceId: string, document: string, version: string): Promise<AcceptanceRow | undefined> {
    const w = this.store.table(legalAcceptances)
    const rows = await this.store.db
      .select()
      .from(w)
      .where(and(eq(w.workspaceId, workspaceId), eq(w.document, document), eq(w.version, version)))
      .limit(1)
    return rows[0]
  }

  /** A workspace's latest acceptance of a document (any version), if any. */
  async latest(workspaceId: string, document: string): Promise<AcceptanceRow | undefined> {
    const w = this.store.table(legalAcceptances)
    const rows = await this.store.db
      .select()
      .from(w)
      .where(and(eq(w.workspaceId, workspaceId), eq(w.document, document)))
      .orderBy(desc(w.acceptedAt), desc(w.id))
      .limit(1)
    return rows[0]
  }

  /** Records an acceptance. */
  async insert(row: AcceptanceRow): Promise<void> {
    await this.store.db.insert(this.store.table(legalAcceptances)).values(row)
  }
}
