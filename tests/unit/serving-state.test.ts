import { Database } from 'bun:sqlite'
import { expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { migrations } from '../../migrations/index'
import { CorporaRepo } from '../../src/features/corpora/corpora.repo'
import { corpora } from '../../src/features/corpora/corpora.tables'
import { migrate } from '../../src/platform/db/migrate'
import { tempDatabases } from '../helpers/temp-databases'
import { watchedStore } from '../helpers/watched-store'

// A base's serving state is read on every question: it is kept with the base's row until the next
// commit to the database (any connection's), not read from the table each time.

const temp = tempDatabases('engram-serving-')

/** A migrated WAL database file with one workspace's base, and a repo whose statement runs are counted. */
function setup() {
  const { file, db } = temp.wal()
  migrate(db, migrations)
  const c = db.$client
  c.exec('PRAGMA foreign_keys = OFF')
  c.query(
    `INSERT INTO corpora (id, workspace_id, name, source_type, status, auto_onboard, created_at, updated_at)
     VALUES ('base1', 'ws1', 'b', 'upload', 'training', 0, 1, 1)`,
  ).run()
  let runs = 0
  const store = watchedStore(db, () => runs++)
  const repo = new CorporaRepo(store)
  return { file, c, store, repo, runs: () => runs }
}

test('repeated questions read the base once until a commit, and see every commit after', async () => {
  const { file, c, repo, runs } = setup()
  expect(await repo.servingState('ws1', 'base1')).toEqual({ status: 'training', anyReady: false })
  const first = runs()
  for (let i = 0; i < 20; i++)
    expect(await repo.servingState('ws1', 'base1')).toEqual({ status: 'training', anyReady: false })
  // The old code ran a statement on each of the 20.
  expect(runs()).toBe(first)

  // This connection's commit is seen at the next question.
  c.query("UPDATE corpora SET documents_ready = 3 WHERE id = 'base1'").run()
  expect(await repo.servingState('ws1', 'base1')).toEqual({ status: 'training', anyReady: true })

  // Another connection's commit too.
  const other = new Database(file)
  temp.keep(other)
  other.query("UPDATE corpora SET status = 'ready' WHERE id = 'base1'").run()
  expect(await repo.servingState('ws1', 'base1')).toEqual({ status: 'ready', anyReady: true })
  other.query("DELETE FROM corpora WHERE id = 'base1'").run()
  expect(await repo.servingState('ws1', 'base1')).toBeNull()
})

test('another workspace never gets the base, and a read inside a unit sees its own writes', async () => {
  const { store, repo } = setup()
  expect(await repo.servingState('ws2', 'base1')).toBeNull()
  expect((await repo.servingState('ws1', 'base1'))?.status).toBe('training')
  expect(await repo.servingState('ws2', 'base1')).toBeNull()
  await store.unit(async () => {
    await store.db.update(corpora).set({ status: 'failed' }).where(eq(corpora.id, 'base1'))
    expect((await repo.servingState('ws1', 'base1'))?.status).toBe('failed')
  })
  expect((await repo.servingState('ws1', 'base1'))?.status).toBe('failed')
})
