import { Database } from 'bun:sqlite'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { type BunSQLiteDatabase, drizzle } from 'drizzle-orm/bun-sqlite'
import { createPrivateFile, PRIVATE_DIR_MODE, privateFile } from '../files/private-files'
import { cacheStatements } from './statement-cache'

/** The drizzle handle every repository takes, plus the raw client for prepared hot-path statements. */
export type Db = BunSQLiteDatabase & { $client: Database }

/**
 * Opens (creating if needed, owner-only) the SQLite database with the settings the whole product
 * relies on: WAL so readers never wait for the writer, foreign keys enforced, a busy timeout instead of
 * instant SQLITE_BUSY, and synchronous=NORMAL (durable at checkpoints, 10x the commit rate of FULL).
 */
export function openDatabase(path: string): Db {
  const onDisk = path !== ':memory:'
  if (onDisk) {
    mkdirSync(dirname(path), { recursive: true, mode: PRIVATE_DIR_MODE })
    // Owner-only before SQLite sees it: the WAL and shared-memory files it makes take this mode.
    createPrivateFile(path)
  }
  const client = new Database(path, { create: true, strict: true })
  client.exec('PRAGMA journal_mode = WAL')
  client.exec('PRAGMA foreign_keys = ON')
  client.exec('PRAGMA busy_timeout = 5000')
  client.exec('PRAGMA synchronous = NORMAL')
  // Those an older version left world-readable are tightened (they exist once WAL is on).
  if (onDisk) for (const suffix of ['-wal', '-shm', '-journal']) privateFile(`${path}${suffix}`)
  cacheStatements(client)
  return drizzle({ client }) as Db
}

/**
 * A second, read-only connection to an open database file, for reads outside units of work
 * (store.ts): in WAL mode it reads the last committed state, never a unit's writes in progress, and
 * a write through it fails at once instead of joining someone else's transaction.
 */
export function openReadConnection(path: string): Db {
  const client = new Database(path, { readonly: true, strict: true })
  client.exec('PRAGMA busy_timeout = 5000')
  cacheStatements(client)
  return drizzle({ client }) as Db
}
