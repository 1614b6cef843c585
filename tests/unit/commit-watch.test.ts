import { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { commitWatch } from '../../src/platform/db/commit-watch'
import { openDatabase } from '../../src/platform/db/db'
import { sqliteStore } from '../../src/platform/db/store'
import { StoreMemo } from '../../src/platform/db/store-memo'
import { writeFromAnotherProcess } from '../helpers/other-process'
import { tempDatabases } from '../helpers/temp-databases'

const temp = tempDatabases('engram-commits-')

/** A WAL database file with one table of (key, value) rows. */
function walFile() {
  const { file, client } = temp.wal()
  client.exec('CREATE TABLE kv (k TEXT PRIMARY KEY, v TEXT)')
  client.exec("INSERT INTO kv VALUES ('a', 'one'), ('b', 'two')")
  return { file, client }
}

for (const map of [true, false]) {
  const kind = map ? 'mapped' : 'read'
  describe(`commit watch, header ${kind}`, () => {
    test('the version holds across reads and moves on every commit of this connection', () => {
      const { client } = walFile()
      const watch = commitWatch(client, { map })
      const v0 = watch.version()
      client.query('SELECT * FROM kv').all()
      expect(watch.version()).toBe(v0)
      client.exec("UPDATE kv SET v = 'uno' WHERE k = 'a'")
      const v1 = watch.version()
      expect(v1).not.toBe(v0)
      expect(watch.version()).toBe(v1)
      client.transaction(() => {
        client.exec("INSERT INTO kv VALUES ('c', 'three')")
        client.exec("DELETE FROM kv WHERE k = 'b'")
      })()
      expect(watch.version()).not.toBe(v1)
    })

    test('a commit by another connection or another process moves it', () => {
      const { file, client } = walFile()
      const watch = commitWatch(client, { map })
      const v0 = watch.version()
      const other = new Database(file)
      temp.keep(other)
      other.exec("UPDATE kv SET v = 'dos' WHERE k = 'b'")
      const v1 = watch.version()
      expect(v1).not.toBe(v0)
      writeFromAnotherProcess(file, "UPDATE kv SET v = 'tres' WHERE k = 'b'")
      expect(watch.version()).not.toBe(v1)
    })

    test('a checkpoint that resets the log moves it too (never a false "unchanged")', () => {
      const { client } = walFile()
      const watch = commitWatch(client, { map })
      const v0 = watch.version()
      client.exec('PRAGMA wal_checkpoint(TRUNCATE)')
      expect(watch.version()).not.toBe(v0)
    })

    test("watching leaves SQLite's locks on the -shm file in place", () => {
      const { file, client } = walFile()
      const inode = statSync(`${file}-shm`).ino
      const locks = () =>
        readFileSync('/proc/locks', 'utf8')
          .split('\n')
          .filter((line) => line.includes(`:${inode} `))
          // The leading number is the line's place in the whole machine's list, which moves as
          // other processes take and drop locks.
          .map((line) => line.replace(/^\d+:\s*/, ''))
      const held = locks()
      // The connection holds its "in use" lock on the file; a descriptor closed by this process
      // would release it, letting another process reset the file under a live connection.
      expect(held.length).toBeGreaterThan(0)
      const watch = commitWatch(client, { map })
      watch.version()
      client.exec("UPDATE kv SET v = 'uno' WHERE k = 'a'")
      watch.version()
      expect(locks()).toEqual(held)
    })

    test(`the header is ${kind}`, () => {
      const { client } = walFile()
      expect(commitWatch(client, { map }).kind).toBe(kind)
    })
  })
}

describe('commit watch', () => {
  test('the header is mapped by default (glibc Linux)', () => {
    const { client } = walFile()
    expect(commitWatch(client).kind).toBe('mapped')
  })

  test('one watch per connection', () => {
    const { client } = walFile()
    expect(commitWatch(client)).toBe(commitWatch(client))
  })

  test('an in-memory or rollback-journal database moves on every call', () => {
    const memory = new Database(':memory:')
    temp.keep(memory)
    const watch = commitWatch(memory)
    expect(watch.version()).not.toBe(watch.version())
    const dir = temp.dir()
    const rollback = new Database(join(dir, 'delete.db'), { create: true })
    temp.keep(rollback)
    rollback.exec('PRAGMA journal_mode = DELETE')
    const other = commitWatch(rollback)
    expect(other.version()).not.toBe(other.version())
  })
})

describe('a memo over the store, on a SQLite file', () => {
  /** A StoreMemo over a store on `file` (a connection of its own), counting the rows it reads. */
  function memoOver(file: string, max?: number) {
    const db = openDatabase(file)
    temp.keep(db.$client)
    const reads: string[] = []
    const statement = db.$client.query<{ v: string }, [string]>('SELECT v FROM kv WHERE k = ?')
    const memo = new StoreMemo(
      sqliteStore(db),
      async (k) => {
        reads.push(k)
        return statement.get(k)?.v
      },
      max,
    )
    return { memo, reads }
  }

  test('a row is read once while nothing commits, and again after any commit', async () => {
    const { file, client } = walFile()
    const { memo, reads } = memoOver(file)
    expect(await memo.get('a')).toBe('one')
    expect(await memo.get('a')).toBe('one')
    expect(await memo.get('b')).toBe('two')
    expect(reads).toEqual(['a', 'b'])
    writeFromAnotherProcess(file, "UPDATE kv SET v = 'uno' WHERE k = 'a'")
    expect(await memo.get('a')).toBe('uno')
    expect(await memo.get('b')).toBe('two')
    expect(reads).toEqual(['a', 'b', 'a', 'b'])
    // A commit to any table, not only the one read, empties it.
    client.exec('CREATE TABLE other (x)')
    expect(await memo.get('a')).toBe('uno')
    expect(reads).toHaveLength(5)
  })

  test('a row deleted by another process is gone on the next get', async () => {
    const { file } = walFile()
    const { memo } = memoOver(file)
    expect(await memo.get('b')).toBe('two')
    writeFromAnotherProcess(file, "DELETE FROM kv WHERE k = 'b'")
    expect(await memo.get('b')).toBeUndefined()
  })

  test('misses are never kept, and at most max rows are', async () => {
    const { file } = walFile()
    const { memo, reads } = memoOver(file, 1)
    expect(await memo.get('zz')).toBeUndefined()
    expect(await memo.get('zz')).toBeUndefined()
    expect(await memo.get('a')).toBe('one')
    expect(await memo.get('b')).toBe('two')
    expect(await memo.get('a')).toBe('one')
    expect(await memo.get('b')).toBe('two')
    expect(reads).toEqual(['zz', 'zz', 'a', 'b', 'b'])
  })

  test('over an in-memory database every get reads', async () => {
    const memory = openDatabase(':memory:')
    temp.keep(memory.$client)
    memory.$client.exec("CREATE TABLE kv (k TEXT PRIMARY KEY, v TEXT); INSERT INTO kv VALUES ('a', 'one')")
    const reads: string[] = []
    const memo = new StoreMemo(sqliteStore(memory), async (k) => {
      reads.push(k)
      return memory.$client.query<{ v: string }, [string]>('SELECT v FROM kv WHERE k = ?').get(k)?.v
    })
    await memo.get('a')
    await memo.get('a')
    expect(reads).toEqual(['a', 'a'])
  })
})
