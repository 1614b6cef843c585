import { getTableColumns, type Table } from 'drizzle-orm'
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core'
import type { Store } from '../../platform/db/store'
import { corpora, documents } from './corpora.tables'

/**
 * A table's row under its SQL column names (`n_documents`, `created_at`), the shape corpora's rows
 * have always had for their callers: each column's type is the one drizzle infers from the
 * declaration (`$inferSelect`), keyed by the column's name.
 */
export type BySqlName<T extends Table> = {
  [K in keyof T['$inferSelect'] &
    keyof T['_']['columns'] as T['_']['columns'][K]['_']['name']]: T['$inferSelect'][K]
}

/** A base row with its document counters (kept by triggers on both engines; see corpora.tables.ts). */
export type CorpusRow = BySqlName<typeof corpora>

/** A document or section row. */
export type DocumentRow = BySqlName<typeof documents>

/** A document or section row under drizzle's keys (`textKey`), as statements on the table select it. */
export type DocumentColumns = typeof documents.$inferSelect

/**
 * The selection that reads a table's rows under their SQL names: each column keyed by its name,
 * so drizzle returns `BySqlName` rows on either engine (the table is the store's: a twin on PostgreSQL).
 */
export function bySqlName(table: SQLiteTable): Record<string, SQLiteColumn> {
  return Object.fromEntries(Object.values(getTableColumns(table)).map((c) => [c.name, c as SQLiteColumn]))
}

/** The store's two tables of corpora, and their selections by SQL name. */
export function corporaTables(store: Store) {
  const c = store.table(corpora)
  const d = store.table(documents)
  return { c, d, corpusCols: bySqlName(c), documentCols: bySqlName(d) }
}

/** Ids a statement names at most (`IN (...)`): far under both engines' limits on parameters. */
export const IDS_A_STATEMENT = 500

/** `ids` in chunks of IDS_A_STATEMENT. */
export function chunks<T>(ids: readonly T[]): T[][] {
  const out: T[][] = []
  for (let at = 0; at < ids.length; at += IDS_A_STATEMENT) out.push(ids.slice(at, at + IDS_A_STATEMENT))
  return out
}

/**
 * A small file's text, read as it was uploaded: its row is written `extracted` (with its sections), with
 * no extraction job to wait for. `key` is where the text is: the raw object itself when the text is
 * the file, else its sidecar (a range of the upload's pack, or an object beside the file); `bytes`
 * what that sidecar adds to the storage (0 for the file).
 */
export interface TextAtUpload {
  key: string
  bytes: number
  chars: number
  contentType: string
  title: string | null
  /** Null for a text of several sections (each section has its own). */
  cartId: string | null
  extractorVersion: number
  /** Its sections' rows when it has several, else none. */
  sections: NewSection[]
}

/** One section row to create after extraction. */
export interface NewSection {
  id: string
  index: number
  title: string | null
  cartId: string
  sha256: string
  /** UTF-8 bytes of the section's text. */
  size: number
  chars: number
  offset: number
}

/**
 * New content of a parent document, as an upload, push or upsert registers it: the documents table's
 * columns (`managedBy`: `push`, a source, or null for documents written by hand), its hash and raw
 * object required, when it was registered, and its text when it was read as it was uploaded.
 */
export type NewContent = Pick<DocumentColumns, 'size' | 'contentType' | 'source' | 'managedBy'> & {
  [K in 'sha256' | 'rawKey']: NonNullable<DocumentColumns[K]>
} & { now: number; text?: TextAtUpload }

/** A new parent document and its content. */
export type NewParent = NewContent & Pick<DocumentColumns, 'id' | 'workspaceId' | 'corpusId' | 'path'>
