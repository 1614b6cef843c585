import type { Database } from 'bun:sqlite'
import { afterEach } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Db, openDatabase } from '../../src/platform/db/db'

/** Database files and connections of a test file, closed and removed after each of its tests. */
export interface TempDatabases {
  /** A database file in a directory of its own, opened as the app opens it (WAL). */
  wal(): { file: string; db: Db; client: Database }
  /** An empty directory of its own. */
  dir(): string
  /** Closes this connection too after the test. */
  keep<T extends Database>(client: T): T
}

/** Temporary databases for the tests of one file (call it at the file's top level). */
export function tempDatabases(prefix: string): TempDatabases {
  const dirs: string[] = []
  const open: Database[] = []
  afterEach(() => {
    for (const client of open.splice(0)) client.close()
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
  })
  const dir = () => {
    const made = mkdtempSync(join(tmpdir(), prefix))
    dirs.push(made)
    return made
  }
  const keep = <T extends Database>(client: T): T => {
    open.push(client)
    return client
  }
  return {
    dir,
    keep,
    wal() {
      const file = join(dir(), 'test.db')
      const db = openDatabase(file)
      keep(db.$client)
      return { file, db, client: db.$client }
    },
  }
}
