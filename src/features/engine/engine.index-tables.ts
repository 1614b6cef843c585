import type { SQLiteTable } from 'drizzle-orm/sqlite-core'
import * as tables from './engine.tables'

/**
 * The engine's index: its declared tables, which it keeps in the data dir's SQLite file whichever
 * engine keeps the features' state (docs/data-layer.md, "The passage index"), so they never move
 * between engines (`engram export-data` / `import-data` leave them where they are).
 */
export const ENGINE_INDEX_TABLES: readonly SQLiteTable[] = Object.values(tables)
