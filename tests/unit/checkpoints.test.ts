import type { Database } from 'bun:sqlite'
import { afterEach, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BACKSTOP_PAGES, CheckpointThread } from '../../src/platform/db/checkpoints'
import { openDatabase } from '../../src/platform/db/db'

const dirs: string[] = []
const open: { client: Database; thread: CheckpointThread }[] = []
afterEach(async () => {
  for (const { client, thread } of open.splice(0)) {
    await thread.stop()
    client.close()
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** A WAL database file, its checkpoint thread (starting at `startBytes` of WAL) and a writer of pages. */
function walFile(startBytes: number, onCheckpoint?: (frames: number, log: number) => void) {
  const dir = mkdtempSync(join(tmpdir(), 'engram-checkpoints-'))
  dirs.push(dir)
  const client = openDatabase(join(dir, 'test.db')).$client
  client.exec('CREATE TABLE blobs (b BLOB)')
  const thread = new CheckpointThread(client, {
    startBytes,
    everyMs: 5,
    onCheckpoint,
  })
  open.push({ client, thread })
  // Each row a page or so: as many WAL frames as rows, one commit each (as questions write).
  const write = (rows: number) => {
    for (let i = 0; i < rows; i++) client.query('INSERT INTO blobs VALUES (randomblob(3000))').run()
  }
  const autocheckpoint = () =>
    (client.query('PRAGMA wal_autocheckpoint').get() as { wal_autocheckpoint: number }).wal_autocheckpoint
  const walBytes = () => statSync(join(dir, 'test.db-wal')).size
  return { client, thread, write, autocheckpoint, walBytes }
}

describe('WAL checkpoints on a thread of their own', () => {
  test('once the WAL has grown, the thread copies it back and the serving connection only checkpoints past the backstop', async () => {
    let copied: () => void = () => {}
    const done = new Promise<void>((resolve) => {
      copied = resolve
    })
    const db = walFile(64 * 1024, () => copied())
    db.write(40)
    db.thread.start()
    expect(db.thread.running).toBe(true)
    expect(db.autocheckpoint()).toBe(BACKSTOP_PAGES)
    db.write(40)
    await done
    expect(db.thread.backfilled).toBeGreaterThan(0)
    // Readers see every row whatever the thread copied.
    expect(db.client.query('SELECT count(*) AS n FROM blobs').get()).toEqual({ n: 80 })
  })

  test('a WAL copied back whole is started again from its beginning by the next write, so steady writes do not grow it', async () => {
    let whole: () => void = () => {}
    const copied = new Promise<void>((resolve) => {
      whole = resolve
    })
    const db = walFile(1, (frames, log) => {
      if (frames === log) whole()
    })
    db.write(60)
    db.thread.start()
    await copied
    const size = db.walBytes()
    // The next writes reuse the frames from the start of the file instead of appending after them.
    db.write(30)
    expect(db.walBytes()).toBe(size)
    expect(db.client.query('SELECT count(*) AS n FROM blobs').get()).toEqual({ n: 90 })
  })

  test('a server whose WAL stays small starts no thread, and its connection checkpoints as SQLite does', () => {
    const db = walFile(64 * 1024 * 1024)
    db.write(5)
    db.thread.start()
    expect(db.thread.running).toBe(false)
    expect(db.autocheckpoint()).toBe(1000)
  })

  test('stopping gives the checkpoints back to the serving connection', async () => {
    const db = walFile(1)
    db.write(3)
    db.thread.start()
    expect(db.thread.running).toBe(true)
    await db.thread.stop()
    expect(db.thread.running).toBe(false)
    expect(db.autocheckpoint()).toBe(1000)
  })

  test('a database in memory has no WAL to checkpoint', () => {
    const client = openDatabase(':memory:').$client
    const thread = new CheckpointThread(client, { startBytes: 1 })
    thread.start()
    expect(thread.running).toBe(false)
    client.close()
  })
})
