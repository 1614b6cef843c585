import type { Db } from '../../platform/db/db'
import type { connections, sourceItems, sources } from './sources.tables'

/** A `connections` row. */
export type ConnectionRow = typeof connections.$inferSelect
/** A `sources` row. */
export type SourceRow = typeof sources.$inferSelect
/** A `source_items` row: what one file of a source became. */
export type ItemRow = typeof sourceItems.$inferSelect

// The columns of each table under their JS keys (sources.tables.ts), as the rows above read them.
const CONNECTION = `id, workspace_id AS workspaceId, kind, name, settings, secrets, secrets_set AS secretsSet,
  created_at AS createdAt, updated_at AS updatedAt`
const SOURCE = `id, workspace_id AS workspaceId, corpus_id AS corpusId, connection_id AS connectionId, mode, name,
  folder, path_prefix AS pathPrefix, interval_minutes AS intervalMinutes, cursor, current_run_id AS currentRunId,
  next_job_id AS nextJobId, next_sync_at AS nextSyncAt, last_run_id AS lastRunId, created_at AS createdAt,
  updated_at AS updatedAt`
const ITEM =
  'source_id AS sourceId, item_id AS itemId, path, version, document_id AS documentId, seen_run AS seenRun'

/** Data functions of connections, sources and their items (prepared bun:sqlite statements). */
export class SourcesRepo {
  constructor(private readonly db: Db) {}

  private get c() {
    return this.db.$client
  }

  insertConnection(r: ConnectionRow): void {
    this.c
      .query(
        `INSERT INTO connections (id, workspace_id, kind, name, settings, secrets, secrets_set, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(r.id, r.workspaceId, r.kind, r.name, r.settings, r.secrets, r.secretsSet, r.createdAt, r.updatedAt)
  }

  updateConnection(r: ConnectionRow): void {
    this.c
      .query(
        'UPDATE connections SET name = ?, settings = ?, secrets = ?, secrets_set = ?, updated_at = ? WHERE id = ?',
      )
      .run(r.name, r.settings, r.secrets, r.secretsSet, r.updatedAt, r.id)
  }

  connection(workspaceId: string, id: string): ConnectionRow | null {
    return this.c
      .query<ConnectionRow, [string, string]>(
        `SELECT ${CONNECTION} FROM connections WHERE workspace_id = ? AND id = ?`,
      )
      .get(workspaceId, id)
  }

  connections(workspaceId: string): ConnectionRow[] {
    return this.c
      .query<ConnectionRow, [string]>(
        `SELECT ${CONNECTION} FROM connections WHERE workspace_id = ? ORDER BY created_at DESC, id DESC`,
      )
      .all(workspaceId)
  }

  deleteConnection(id: string): void {
    this.c.query('DELETE FROM connections WHERE id = ?').run(id)
  }

  /** Sources (and imports) using a connection. */
  usersOf(connectionId: string): number {
    return (
      this.c
        .query<{ n: number }, [string]>('SELECT count(*) AS n FROM sources WHERE connection_id = ?')
        .get(connectionId)?.n ?? 0
    )
  }

  /** Forgets where the sources of a connection would resume listing. */
  resetCursors(connectionId: string): void {
    this.c.query('UPDATE sources SET cursor = NULL WHERE connection_id = ?').run(connectionId)
  }

  insertSource(r: SourceRow): void {
    this.c
      .query(
        `INSERT INTO sources (id, workspace_id, corpus_id, connection_id, mode, name, folder, path_prefix,
           interval_minutes, cursor, current_run_id, next_job_id, next_sync_at, last_run_id, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        r.id,
        r.workspaceId,
        r.corpusId,
        r.connectionId,
        r.mode,
        r.name,
        r.folder,
        r.pathPrefix,
        r.intervalMinutes,
        r.cursor,
        r.currentRunId,
        r.nextJobId,
        r.nextSyncAt,
        r.lastRunId,
        r.createdAt,
        r.updatedAt,
      )
  }

  /** Writes the fields of a source that change after creation. */
  updateSource(r: SourceRow): void {
    this.c
      .query(
        `UPDATE sources SET connection_id = ?, name = ?, folder = ?, path_prefix = ?, interval_minutes = ?, cursor = ?,
           current_run_id = ?, next_job_id = ?, next_sync_at = ?, last_run_id = ?, updated_at = ? WHERE id = ?`,
      )
      .run(
        r.connectionId,
        r.name,
        r.folder,
        r.pathPrefix,
        r.intervalMinutes,
        r.cursor,
        r.currentRunId,
        r.nextJobId,
        r.nextSyncAt,
        r.lastRunId,
        r.updatedAt,
        r.id,
      )
  }

  /** One source of a base; another base's or workspace's is null. */
  source(workspaceId: string, corpusId: string, id: string): SourceRow | null {
    return this.c
      .query<SourceRow, [string, string, string]>(
        `SELECT ${SOURCE} FROM sources WHERE workspace_id = ? AND corpus_id = ? AND id = ?`,
      )
      .get(workspaceId, corpusId, id)
  }

  sourceById(id: string): SourceRow | null {
    return this.c.query<SourceRow, [string]>(`SELECT ${SOURCE} FROM sources WHERE id = ?`).get(id)
  }

  /** A base's sources (mode `sync`) or imports, newest first. */
  sources(corpusId: string, mode: 'sync' | 'import'): SourceRow[] {
    return this.c
      .query<SourceRow, [string, string]>(
        `SELECT ${SOURCE} FROM sources WHERE corpus_id = ? AND mode = ? ORDER BY created_at DESC, id DESC`,
      )
      .all(corpusId, mode)
  }

  deleteSource(id: string): void {
    this.c.query('DELETE FROM sources WHERE id = ?').run(id)
  }

  item(sourceId: string, itemId: string): ItemRow | null {
    return this.c
      .query<ItemRow, [string, string]>(
        `SELECT ${ITEM} FROM source_items WHERE source_id = ? AND item_id = ?`,
      )
      .get(sourceId, itemId)
  }

  /** Records what a file became (or that it was seen) in a run. */
  putItem(r: ItemRow): void {
    this.c
      .query(
        `INSERT INTO source_items (source_id, item_id, path, version, document_id, seen_run) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (source_id, item_id) DO UPDATE SET path = excluded.path, version = excluded.version,
           document_id = excluded.document_id, seen_run = excluded.seen_run`,
      )
      .run(r.sourceId, r.itemId, r.path, r.version, r.documentId, r.seenRun)
  }

  /** Marks files seen unchanged in a run. */
  markSeen(sourceId: string, itemIds: string[], runId: string): void {
    const q = this.c.query('UPDATE source_items SET seen_run = ? WHERE source_id = ? AND item_id = ?')
    for (const id of itemIds) q.run(runId, sourceId, id)
  }

  /** Files a complete listing of `runId` did not see: gone at the source. */
  unseen(sourceId: string, runId: string): ItemRow[] {
    return this.c
      .query<ItemRow, [string, string]>(
        `SELECT ${ITEM} FROM source_items WHERE source_id = ? AND (seen_run IS NULL OR seen_run <> ?)`,
      )
      .all(sourceId, runId)
  }

  deleteItems(sourceId: string, itemIds: string[]): void {
    const q = this.c.query('DELETE FROM source_items WHERE source_id = ? AND item_id = ?')
    for (const id of itemIds) q.run(sourceId, id)
  }

  /** Every item of a source with a document (for `delete_documents`). */
  items(sourceId: string): ItemRow[] {
    return this.c
      .query<ItemRow, [string]>(`SELECT ${ITEM} FROM source_items WHERE source_id = ?`)
      .all(sourceId)
  }

  /** How many files the source had at its last sync: the estimate of the next one's size. */
  itemCount(sourceId: string): number {
    return (
      this.c
        .query<{ n: number }, [string]>('SELECT count(*) AS n FROM source_items WHERE source_id = ?')
        .get(sourceId)?.n ?? 0
    )
  }
}
