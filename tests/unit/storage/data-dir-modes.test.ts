import { Database } from 'bun:sqlite'
import { afterAll, describe, expect, test } from 'bun:test'
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openRuntime } from '../../../src/cli/runtime'
import { loadConfig } from '../../../src/platform/config/config.load'

// Issue 32, item 8: the database and its WAL were 0644 in a 0755 data dir, readable by every user
// of the machine. Everything under the data dir is the owner's only, new or left by an older version.

const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

/** A data dir path inside a fresh temp folder (not created: the runtime makes it). */
function dataDirPath(): string {
  const parent = mkdtempSync(join(tmpdir(), 'engram-modes-'))
  dirs.push(parent)
  return join(parent, 'data')
}

const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8)

/** Opens the runtime as `serve` does, on `dataDir`. */
function open(dataDir: string) {
  return openRuntime(
    loadConfig({ env: { ENGRAM_DATA_DIR: dataDir, ENGRAM_LOG_LEVEL: 'error' }, readFile: () => null }),
  )
}

describe('the data dir and what it holds are readable by their owner only', () => {
  test('a fresh data dir is 0700; the database, its WAL and shared memory, the secret and objects 0600', async () => {
    const dataDir = dataDirPath()
    const rt = await open(dataDir)
    rt.db.$client.exec('CREATE TABLE modes_probe (a TEXT)')
    rt.db.$client.exec("INSERT INTO modes_probe VALUES ('x')")
    await rt.objects.put('ws_1/corpora/cor_1/blobs/blob_1', 'a tenant document')
    try {
      expect({
        dir: modeOf(dataDir),
        db: modeOf(join(dataDir, 'engram.db')),
        wal: modeOf(join(dataDir, 'engram.db-wal')),
        shm: modeOf(join(dataDir, 'engram.db-shm')),
        secret: modeOf(join(dataDir, 'secret')),
        objects: modeOf(join(dataDir, 'objects')),
        objectFolder: modeOf(join(dataDir, 'objects', 'ws_1', 'corpora', 'cor_1', 'blobs')),
        object: modeOf(join(dataDir, 'objects', 'ws_1', 'corpora', 'cor_1', 'blobs', 'blob_1')),
      }).toEqual({
        dir: '700',
        db: '600',
        wal: '600',
        shm: '600',
        secret: '600',
        objects: '700',
        objectFolder: '700',
        object: '600',
      })
    } finally {
      await rt.close()
    }
  })

  test('a data dir an older version left world-readable is tightened at start-up', async () => {
    const dataDir = dataDirPath()
    mkdirSync(join(dataDir, 'objects'), { recursive: true, mode: 0o755 })
    chmodSync(dataDir, 0o755)
    chmodSync(join(dataDir, 'objects'), 0o755)
    writeFileSync(join(dataDir, 'secret'), `${'s'.repeat(64)}\n`, { mode: 0o644 })
    // Another process (the older server) holds the database open, so its WAL and shared memory exist.
    const path = join(dataDir, 'engram.db')
    const older = new Database(path, { create: true })
    older.exec('PRAGMA journal_mode = WAL')
    older.exec('CREATE TABLE modes_probe (a TEXT)')
    for (const f of ['engram.db', 'engram.db-wal', 'engram.db-shm']) chmodSync(join(dataDir, f), 0o644)
    expect(modeOf(join(dataDir, 'engram.db-wal'))).toBe('644')
    const rt = await open(dataDir)
    try {
      expect(
        ['.', 'objects', 'secret', 'engram.db', 'engram.db-wal', 'engram.db-shm'].map((f) => [
          f,
          modeOf(join(dataDir, f)),
        ]),
      ).toEqual([
        ['.', '700'],
        ['objects', '700'],
        ['secret', '600'],
        ['engram.db', '600'],
        ['engram.db-wal', '600'],
        ['engram.db-shm', '600'],
      ])
    } finally {
      await rt.close()
      older.close()
    }
  })
})
