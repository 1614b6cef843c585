import { and, count, desc, eq, inArray, isNull, ne, or, sql } from 'drizzle-orm'
import type { Store } from '../../platform/db/store'
import { connections, sourceItems, sources } from './sources.tables'

/** A `connections` row. */
export type ConnectionRow = typeof connections.$inferSelect
/** A `sources` row. */
export type SourceRow = typeof sources.$inferSelect
/** A `source_items` row: what one file of a source became. */
export type ItemRow = typeof sourceItems.$inferSelect

/** Data functions of connections, sources and their items, on the store (either engine, docs/data-layer.md). */
export class SourcesRepo {
  constructor(private readonly store: Store) {}

  async insertConnection(r: ConnectionRow): Promise<void> {
    await this.store.db.insert(this.store.table(connections)).values(r)
  }

  async updateConnection(r: ConnectionRow): Promise<void> {
    const t = this.store.table(connections)
    await this.store.db
      .update(t)
      .set({
        name: r.name,
        settings: r.settings,
        secrets: r.secrets,
        secretsSet: r.secretsSet,
        updatedAt: r.updatedAt,
      })
      .where(eq(t.id, r.id))
  }

  async connection(workspaceId: string, id: string): Promise<ConnectionRow | null> {
    const t = this.store.table(connections)
    const rows = await this.store.db
      .select()
      .from(t)
      .where(and(eq(t.workspaceId, workspaceId), eq(t.id, id)))
      .limit(1)
    return rows[0] ?? null
  }

  async connections(workspaceId: string): Promise<ConnectionRow[]> {
    const t = this.store.table(connections)
    return this.store.db
      .select()
      .from(t)
      .where(eq(t.workspaceId, workspaceId))
      .orderBy(desc(t.createdAt), desc(t.id))
  }

  async deleteConnection(id: string): Promise<void> {
    const t = this.store.table(connections)
    await this.store.db.delete(t).where(eq(t.id, id))
  }

  /** Sources (and imports) using a connection. */
  async usersOf(connectionId: string): Promise<number> {
    const t = this.store.table(sources)
    const rows = await this.store.db.select({ n: count() }).from(t).where(eq(t.connectionId, connectionId))
    return Number(rows[0]?.n ?? 0)
  }

  /** Forgets where the sources of a connection would resume listing. */
  async resetCursors(connectionId: string): Promise<void> {
    const t = this.store.table(sources)
    await this.store.db.update(t).set({ cursor: null }).where(eq(t.connectionId, connectionId))
  }

  async insertSource(r: SourceRow): Promise<void> {
    await this.store.db.insert(this.store.table(sources)).values(r)
  }

  /** Writes the fields of a source that change after creation. */
  async updateSource(r: SourceRow): Promise<void> {
    const t = this.store.table(sources)
    await this.store.db.update(t).set(changeable(r)).where(eq(t.id, r.id))
  }

  /** One source of a base; another base's or workspace's is null. */
  async source(workspaceId: string, corpusId: string, id: string): Promise<SourceRow | null> {
    const t = this.store.table(sources)
    const rows = await this.store.db
      .select()
      .from(t)
      .where(and(eq(t.workspaceId, workspaceId), eq(t.corpusId, corpusId), eq(t.id, id)))
      .limit(1)
    return rows[0] ?? null
  }

  async sourceById(id: string): Promise<SourceRow | null> {
    const t = this.store.table(sources)
    const rows = await this.store.db.select().from(t).where(eq(t.id, id)).limit(1)
    return rows[0] ?? null
  }

  /** A base's sources (mode `sync`) or imports, newest first. */
  async sources(corpusId: string, mode: 'sync' | 'import'): Promise<SourceRow[]> {
    const t = this.store.table(sources)
    return this.store.db
      .select()
      .from(t)
      .where(and(eq(t.corpusId, corpusId), eq(t.mode, mode)))
      .orderBy(desc(t.createdAt), desc(t.id))
  }

  async deleteSource(id: string): Promise<void> {
    const t = this.store.table(sources)
    await this.store.db.delete(t).where(eq(t.id, id))
  }

  async item(sourceId: string, itemId: string): Promise<ItemRow | null> {
    const t = this.store.table(sourceItems)
    const rows = await this.store.db
      .select()
      .from(t)
      .where(and(eq(t.sourceId, sourceId), eq(t.itemId, itemId)))
      .limit(1)
    return rows[0] ?? null
  }

  /** The records of some files of a source (a batch's, read in one query); files never seen have none. */
  async itemsOf(sourceId: string, itemIds: string[]): Promise<ItemRow[]> {
    if (itemIds.length === 0) return []
    const t = this.store.table(sourceItems)
    return this.store.db
      .select()
      .from(t)
      .where(and(eq(t.sourceId, sourceId), inArray(t.itemId, itemIds)))
  }

  /** Files a complete listing of `runId` did not see: gone at the source. */
  async unseen(sourceId: string, runId: string): Promise<ItemRow[]> {
    const t = this.store.table(sourceItems)
    return this.store.db
      .select()
      .from(t)
      .where(and(eq(t.sourceId, sourceId), or(isNull(t.seenRun), ne(t.seenRun, runId))))
  }

  /** Every item of a source with a document (for `delete_documents`). */
  async items(sourceId: string): Promise<ItemRow[]> {
    const t = this.store.table(sourceItems)
    return this.store.db.select().from(t).where(eq(t.sourceId, sourceId))
  }

  /** How many files the source had at its last sync: the estimate of the next one's size. */
  async itemCount(sourceId: string): Promise<number> {
    const t = this.store.table(sourceItems)
    const rows = await this.store.db.select({ n: count() }).from(t).where(eq(t.sourceId, sourceId))
    return Number(rows[0]?.n ?? 0)
  }

  /**
   * Records what files became (or that they were seen) in a run, in one statement a slice: an
   * upsert on (source, item), the last of a file given twice winning. In the batch's unit.
   */
  async putItems(rows: ItemRow[]): Promise<void> {
    const t = this.store.table(sourceItems)
    const last = [...new Map(rows.map((r) => [r.itemId, r])).values()]
    for (let at = 0; at < last.length; at += ITEMS_A_STATEMENT) {
      await this.store.db
        .insert(t)
        .values(last.slice(at, at + ITEMS_A_STATEMENT))
        .onConflictDoUpdate({
          target: [t.sourceId, t.itemId],
          set: {
            path: sql`excluded.path`,
            version: sql`excluded.version`,
            documentId: sql`excluded.document_id`,
            seenRun: sql`excluded.seen_run`,
          },
        })
    }
  }

  /** Marks files seen unchanged in a run; in the batch's unit. */
  async markSeen(sourceId: string, itemIds: string[], runId: string): Promise<void> {
    const t = this.store.table(sourceItems)
    for (let at = 0; at < itemIds.length; at += ITEMS_A_STATEMENT) {
      const ids = itemIds.slice(at, at + ITEMS_A_STATEMENT)
      await this.store.db
        .update(t)
        .set({ seenRun: runId })
        .where(and(eq(t.sourceId, sourceId), inArray(t.itemId, ids)))
    }
  }

  /** Forgets files gone at the source; in the batch's unit. */
  async deleteItems(sourceId: string, itemIds: string[]): Promise<void> {
    const t = this.store.table(sourceItems)
    for (let at = 0; at < itemIds.length; at += ITEMS_A_STATEMENT) {
      const ids = itemIds.slice(at, at + ITEMS_A_STATEMENT)
      await this.store.db.delete(t).where(and(eq(t.sourceId, sourceId), inArray(t.itemId, ids)))
    }
  }
}

/** Rows (or keys) one statement of the item writes takes: well under either engine's parameter limit. */
const ITEMS_A_STATEMENT = 500

/** The fields of a source that change after creation. */
function changeable(r: SourceRow) {
  return {
    connectionId: r.connectionId,
    name: r.name,
    folder: r.folder,
    pathPrefix: r.pathPrefix,
    intervalMinutes: r.intervalMinutes,
    cursor: r.cursor,
    currentRunId: r.currentRunId,
    nextJobId: r.nextJobId,
    nextSyncAt: r.nextSyncAt,
    lastRunId: r.lastRunId,
    updatedAt: r.updatedAt,
  }
}
