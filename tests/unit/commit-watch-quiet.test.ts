import { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import { type CommitWatch, commitWatch } from '../../src/platform/db/commit-watch'
import { openDatabase } from '../../src/platform/db/db'
import { writeFromAnotherProcess } from '../helpers/other-process'
import { tempDatabases } from '../helpers/temp-databases'

// A question's own commits (its allowance, its event) write no row the memos keep: a quiet unit
// (store.ts) takes the watch's mark before its transaction and hands it back after its commit
// (quietMark, quietDone), which keeps the watch's version across that commit, and only when nothing
// else committed before or after it. `quietly` below is those two halves around a synchronous write.

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

/** Runs `write` (true when it committed a transaction of its own) between the watch's two halves. */
function quietly(watch: CommitWatch, client: Database, write: () => boolean): boolean {
  if (client.inTransaction) return write()
  const mark = watch.quietMark()
  const committed = write()
  if (committed) watch.quietDone(mark)
  return committed
}

/** What a memo over the watch does: reads again whenever the version moved. */
function memo<V>(watch: CommitWatch, read: (key: string) => V | undefined) {
  const rows = new Map<string, V | undefined>()
  let seen = -1
  return {
    get(key: string) {
      const version = watch.version()
      if (version !== seen) {
        rows.clear()
        seen = version
      }
      if (!rows.has(key)) rows.set(key, read(key))
      return rows.get(key)
    },
  }
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
      const m = memo(watch, (k) => {
        reads++
        return client.query<{ v: string }, [string]>('SELECT v FROM kv WHERE k = ?').get(k)?.v
      })
      expect(m.get('a')).toBe('one')
      const v0 = watch.version()
      for (let i = 0; i < 5; i++) {
        expect(quietly(watch, client, () => count(client))).toBe(true)
        // The counter's own transaction, as the question's event is written.
        quietly(watch, client, () => {
          client.transaction(() => count(client))()
          return true
        })
        expect(m.get('a')).toBe('one')
      }
      expect(reads).toBe(1)
      expect(watch.version()).toBe(v0)
      expect(client.query<{ c: number }, []>('SELECT c FROM n').get()!.c).toBe(10)
    })

    test('an ordinary commit of this connection after quiet ones still moves it (a revocation)', () => {
      const { client } = walFile()
      const watch = commitWatch(client, { map })
      const m = memo(
        watch,
        (k) => client.query<{ v: string }, [string]>('SELECT v FROM kv WHERE k = ?').get(k)?.v,
      )
      expect(m.get('a')).toBe('one')
      quietly(watch, client, () => count(client))
      client.exec("UPDATE kv SET v = 'revoked' WHERE k = 'a'")
      expect(m.get('a')).toBe('revoked')
      quietly(watch, client, () => count(client))
      expect(m.get('a')).toBe('revoked')
    })

    test("another connection's commit before, during or after a quiet one moves it", () => {
      const { client, other } = walFile()
      const watch = commitWatch(client, { map })
      const o = other()
      // Before: committed since the last look, so the quiet commit is not the only one.
      let v = watch.version()
      o.exec("UPDATE kv SET v = 'before' WHERE k = 'a'")
      quietly(watch, client, () => count(client))
      expect(watch.version()).not.toBe(v)
      // Right after the quiet commit, before the watch looks again.
      v = watch.version()
      quietly(watch, client, () => {
        count(client)
        o.exec("UPDATE kv SET v = 'after' WHERE k = 'a'")
        return true
      })
      expect(watch.version()).not.toBe(v)
      // In another process.
      v = watch.version()
      quietly(watch, client, () => {
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
        quietly(watch, client, () => {
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
        quietly(watch, client, () => count(client))
        client.exec("UPDATE kv SET v = 'with it' WHERE k = 'a'")
      })()
      expect(watch.version()).not.toBe(v)
    })

    test('a write that throws moves nothing of its own, and a later commit is seen', () => {
      const { client } = walFile()
      const watch = commitWatch(client, { map })
      const v = watch.version()
      expect(() =>
        quietly(watch, client, () => {
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
  expect(quietly(watch, client, () => count(client))).toBe(true)
  expect(watch.version()).not.toBe(v)
})
