import type { Db } from '../../platform/db/db'
import type { SourceKind } from './connectors/connector'

/** A `connections` row. */
export interface ConnectionRow {
  id: string
  workspace_id: string
  kind: SourceKind
  name: string
  settings: string
  secrets: string
  secrets_set: string
  created_at: number
  updated_at: number
}

/** A `sources` row. */
export interface SourceRow {
  id: string
  workspace_id: string
  corpus_id: string
  connection_id: string
  mode: 'sync' | 'import'
  name: string
  folder: string
  path_prefix: string
  interval_minutes: number | null
  cursor: string | null
  current_run_id: string | null
  next_job_id: string | null
  next_sync_at: number | null
  last_run_id: string | null
  created_at: number
  updated_at: number
}

/** A `source_items` row: what one file of a source became. */
export interface ItemRow {
  source_id: string
  item_id: string
  path: string
  version: string
  document_id: string | null
  seen_run: string | null
}

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
      .run(
        r.id,
        r.workspace_id,
        r.kind,
        r.name,
        r.settings,
        r.secrets,
        r.secrets_set,
        r.created_at,
        r.updated_at,
      )
  }

  updateConnection(r: ConnectionRow): void {
    this.c
      .query(
        'UPDATE connections SET name = ?, settings = ?, secrets = ?, secrets_set = ?, updated_at = ? WHERE id = ?',
      )
      .run(r.name, r.settings, r.secrets, r.secrets_set, r.updated_at, r.id)
  }

  connection(workspaceId: string, id: string): ConnectionRow | null {
    return this.c
      .query<ConnectionRow, [string, string]>('SELECT * FROM connections WHERE workspace_id = ? AND id = ?')
      .get(workspaceId, id)
  }

  connections(workspaceId: string): ConnectionRow[] {
    return this.c
      .query<ConnectionRow, [string]>(
        'SELECT * FROM connections WHERE workspace_id = ? ORDER BY created_at DESC, id DESC',
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
        r.workspace_id,
        r.corpus_id,
        r.connection_id,
        r.mode,
        r.name,
        r.folder,
        r.path_prefix,
        r.interval_minutes,
        r.cursor,
        r.current_run_id,
        r.next_job_id,
        r.next_sync_at,
        r.last_run_id,
        r.created_at,
        r.updated_at,
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
        r.connection_id,
        r.name,
        r.folder,
        r.path_prefix,
        r.interval_minutes,
        r.cursor,
        r.current_run_id,
        r.next_job_id,
        r.next_sync_at,
        r.last_run_id,
        r.updated_at,
        r.id,
      )
  }

  /** One source of a base; another base's or workspace's is null. */
  source(workspaceId: string, corpusId: string, id: string): SourceRow | null {
    return this.c
      .query<SourceRow, [string, string, string]>(
        'SELECT * FROM sources WHERE workspace_id = ? AND corpus_id = ? AND id = ?',
      )
      .get(workspaceId, corpusId, id)
  }

  sourceById(id: string): SourceRow | null {
    return this.c.query<SourceRow, [string]>('SELECT * FROM sources WHERE id = ?').get(id)
  }

  /** A base's sources (mode `sync`) or imports, newest first. */
  sources(corpusId: string, mode: 'sync' | 'import'): SourceRow[] {
    return this.c
      .query<SourceRow, [string, string]>(
        'SELECT * FROM sources WHERE corpus_id = ? AND mode = ? ORDER BY created_at DESC, id DESC',
      )
      .all(corpusId, mode)
  }

  deleteSource(id: string): void {
    this.c.query('DELETE FROM sources WHERE id = ?').run(id)
  }

  item(sourceId: string, itemId: string): ItemRow | null {
    return this.c
      .query<ItemRow, [string, string]>('SELECT * FROM source_items WHERE source_id = ? AND item_id = ?')
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
      .run(r.source_id, r.item_id, r.path, r.version, r.document_id, r.seen_run)
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
        'SELECT * FROM source_items WHERE source_id = ? AND (seen_run IS NULL OR seen_run <> ?)',
      )
      .all(sourceId, runId)
  }

  deleteItems(sourceId: string, itemIds: string[]): void {
    const q = this.c.query('DELETE FROM source_items WHERE source_id = ? AND item_id = ?')
    for (const id of itemIds) q.run(sourceId, id)
  }

  /** Every item of a source with a document (for `delete_documents`). */
  items(sourceId: string): ItemRow[] {
    return this.c.query<ItemRow, [string]>('SELECT * FROM source_items WHERE source_id = ?').all(sourceId)
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
