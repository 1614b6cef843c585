import { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import { CommitMemo, commitWatch } from '../../src/platform/db/commit-watch'
import { openDatabase } from '../../src/platform/db/db'
import { writeFromAnotherProcess } from '../helpers/other-process'
import { tempDatabases } from '../helpers/temp-databases'

// A question's own commits (its allowance, its event) write no row the memos keep: `quietly` keeps
// the watch's version across such a commit, and only when nothing else committed before or after it.

const temp = tempDatabases('engram-quiet-')

/** A WAL database file with a memoised table (kv) and a counter table no memo reads (n). */
function walFile() {
  const { file, client } = temp.wal()
  client.exec('CREATE TABLE kv (k TEXT PRIMARY KEY, v TEXT)')
  client.exec("INSERT INTO kv VALUES ('a', 'one')")
  client.exec('CREATE TABLE n (id INTEGER PRIMARY KEY, c INTEGER)')
  client.exec('INSERT INTO n VALUES (1, 0)')
  const other = () => {
    const db = new Database(file)
    db.exec('PRAGMA busy_timeout = 5000')
    temp.keep(db)
    return db
  }
  return { file, client, other }
}

const count = (c: Database) => {
  c.exec('UPDATE n SET c = c + 1 WHERE id = 1')
  return true
}

for (const map of [true, false]) {
  describe(`quiet commits, header ${map ? 'mapped' : 'read'}`, () => {
    test('a quiet commit keeps the version, and a memo keeps its rows across it', () => {
      const { client } = walFile()
      const watch = commitWatch(client, { map })
      let reads = 0
      const memo = new CommitMemo(watch, (k) => {
        reads++
        return client.query<{ v: string }, [string]>('SELECT v FROM kv WHERE k = ?').get(k)?.v
      })
      expect(memo.get('a')).toBe('one')
      const v0 = watch.version()
      for (let i = 0; i < 5; i++) {
        expect(watch.quietly(() => count(client))).toBe(true)
        // The counter's own transaction, as the question's event is written.
        watch.quietly(() => {
          client.transaction(() => count(client))()
          return true
        })
        expect(memo.get('a')).toBe('one')
      }
      expect(reads).toBe(1)
      expect(watch.version()).toBe(v0)
      expect(client.query<{ c: number }, []>('SELECT c FROM n').get()!.c).toBe(10)
    })

    test('an ordinary commit of this connection after quiet ones still moves it (a revocation)', () => {
      const { client } = walFile()
      const watch = commitWatch(client, { map })
      const memo = new CommitMemo(
        watch,
        (k) => client.query<{ v: string }, [string]>('SELECT v FROM kv WHERE k = ?').get(k)?.v,
      )
      expect(memo.get('a')).toBe('one')
      watch.quietly(() => count(client))
      client.exec("UPDATE kv SET v = 'revoked' WHERE k = 'a'")
      expect(memo.get('a')).toBe('revoked')
      watch.quietly(() => count(client))
      expect(memo.get('a')).toBe('revoked')
    })

    test("another connection's commit before, during or after a quiet one moves it", () => {
      const { client, other } = walFile()
      const watch = commitWatch(client, { map })
      const o = other()
      // Before: committed since the last look, so the quiet commit is not the only one.
      let v = watch.version()
      o.exec("UPDATE kv SET v = 'before' WHERE k = 'a'")
      watch.quietly(() => count(client))
      expect(watch.version()).not.toBe(v)
      // Right after the quiet commit, before the watch looks again.
      v = watch.version()
      watch.quietly(() => {
        count(client)
        o.exec("UPDATE kv SET v = 'after' WHERE k = 'a'")
        return true
      })
      expect(watch.version()).not.toBe(v)
      // In another process.
      v = watch.version()
      watch.quietly(() => {
        count(client)
        writeFromAnotherProcess(client.filename, "UPDATE kv SET v = 'elsewhere' WHERE k = 'a'")
        return true
      })
      expect(watch.version()).not.toBe(v)
    })

    test('a write that says it committed nothing lets no other commit pass as its own', () => {
      const { client, other } = walFile()
      const watch = commitWatch(client, { map })
      const o = other()
      const v = watch.version()
      expect(
        watch.quietly(() => {
          o.exec("UPDATE kv SET v = 'other' WHERE k = 'a'")
          return false
        }),
      ).toBe(false)
      expect(watch.version()).not.toBe(v)
    })

    test("inside another transaction it is the plain write: that transaction's commit moves it", () => {
      const { client } = walFile()
      const watch = commitWatch(client, { map })
      const v = watch.version()
      client.transaction(() => {
        watch.quietly(() => count(client))
        client.exec("UPDATE kv SET v = 'with it' WHERE k = 'a'")
      })()
      expect(watch.version()).not.toBe(v)
    })

    test('a write that throws moves nothing of its own, and a later commit is seen', () => {
      const { client } = walFile()
      const watch = commitWatch(client, { map })
      const v = watch.version()
      expect(() =>
        watch.quietly(() => {
          client.exec('UPDATE missing SET c = 1')
          return true
        }),
      ).toThrow()
      expect(watch.version()).toBe(v)
      client.exec("UPDATE kv SET v = 'later' WHERE k = 'a'")
      expect(watch.version()).not.toBe(v)
    })
  })
}

test('over an in-memory database a quiet write still moves the version on every call', () => {
  const client = openDatabase(':memory:').$client
  temp.keep(client)
  client.exec('CREATE TABLE n (id INTEGER PRIMARY KEY, c INTEGER)')
  client.exec('INSERT INTO n VALUES (1, 0)')
  const watch = commitWatch(client)
  const v = watch.version()
  expect(watch.quietly(() => count(client))).toBe(true)
  expect(watch.version()).not.toBe(v)
})
