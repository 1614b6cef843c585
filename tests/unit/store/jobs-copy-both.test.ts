import { afterEach, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { migrations } from '../../../migrations/index'
import { migrations as pgMigrations } from '../../../migrations-pg/index'
import { ManualClock } from '../../../src/platform/clock/clock'
import { seededRandom } from '../../../src/platform/crypto/random'
import { copyTables } from '../../../src/platform/db/copy'
import { postgresTarget, sqliteTarget } from '../../../src/platform/db/copy-targets'
import { openDatabase } from '../../../src/platform/db/db'
import { migrate } from '../../../src/platform/db/migrate'
import { openPostgres } from '../../../src/platform/db/open-postgres'
import { type Store, sqliteStore } from '../../../src/platform/db/store'
import { jobs } from '../../../src/platform/jobs/jobs.tables'
import { JobQueue } from '../../../src/platform/jobs/queue'
import { testPostgres } from '../../helpers/postgres'

// Jobs keep their insertion order (`seq`, an identity on PostgreSQL) through `export-data` and
// `import-data`'s copy: the copied values are written as they are, and the job made after the copy
// on either side comes after every copied one (PostgreSQL's sequence is moved past them).

const pg = await testPostgres()
const closers: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close()
})

function sqliteFile() {
  const dir = mkdtempSync(join(tmpdir(), 'engram-jobs-copy-'))
  const db = openDatabase(join(dir, 'engram.db'))
  migrate(db, migrations)
  closers.push(() => {
    db.$client.close()
    rmSync(dir, { recursive: true, force: true })
  })
  return db
}

/** Makes `n` jobs in one millisecond (the clock stands still); returns their ids in that order. */
async function make(store: Store, seed: number, n: number): Promise<string[]> {
  const queue = new JobQueue(store.db, new ManualClock('2026-05-01T00:00:00Z'), seededRandom(seed), store)
  const ids: string[] = []
  for (let i = 0; i < n; i++)
    ids.push(
      (await store.unit(() => queue.add({ workspaceId: 'ws_a', kind: 'work', subjectId: 'src_1' }))).id,
    )
  return ids
}

/** The jobs' ids and seq in insertion order. */
async function inOrder(store: Store) {
  const j = store.table(jobs)
  return store.db.select({ id: j.id, seq: j.seq }).from(j).orderBy(j.seq)
}

describe.skipIf(!pg.available)('copying jobs between the engines', () => {
  test('insertion order survives the copy both ways, and the next job made comes after the copied ones', async () => {
    const sqliteDb = sqliteFile()
    const single = sqliteStore(sqliteDb)
    const made = await make(single, 3, 8)
    expect([...made].sort()).not.toEqual(made)
    const before = await inOrder(single)
    expect(before.map((r) => r.id)).toEqual(made)

    if (!pg.available) throw new Error(pg.reason)
    const opened = await openPostgres(await pg.freshDatabase(), pgMigrations)
    closers.push(opened.close)
    await copyTables(single, postgresTarget(opened.store), [jobs])
    expect(await inOrder(opened.store)).toEqual(before)
    const [onPg] = await make(opened.store, 4, 1)
    const afterPg = await inOrder(opened.store)
    expect(afterPg.at(-1)).toEqual({ id: onPg!, seq: before.at(-1)!.seq + 1 })

    const back = sqliteFile()
    await copyTables(opened.store, sqliteTarget(back, { replace: true }), [jobs])
    const returned = sqliteStore(back)
    expect(await inOrder(returned)).toEqual(afterPg)
    const [onSqlite] = await make(returned, 5, 1)
    expect((await inOrder(returned)).at(-1)).toEqual({ id: onSqlite!, seq: afterPg.at(-1)!.seq + 1 })
  })
})
