import { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import { cacheStatements } from '../../src/platform/db/statement-cache'

describe('a connection that keeps its prepared statements', () => {
  test('the same SQL gives the statement prepared before, and each call binds its own values', () => {
    const db = new Database(':memory:')
    cacheStatements(db)
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)')
    const insert = db.prepare('INSERT INTO t (id, v) VALUES (?, ?)')
    expect(db.prepare('INSERT INTO t (id, v) VALUES (?, ?)')).toBe(insert)
    insert.run(1, 'a')
    db.prepare('INSERT INTO t (id, v) VALUES (?, ?)').run(2, 'b')
    const read = db.prepare('SELECT v FROM t WHERE id = ?')
    expect(read.get(1)).toEqual({ v: 'a' })
    expect(db.prepare('SELECT v FROM t WHERE id = ?').get(2)).toEqual({ v: 'b' })
    expect(db.prepare('SELECT v FROM t ORDER BY id').all()).toEqual([{ v: 'a' }, { v: 'b' }])
  })

  test('at most `max` statements are kept: the least recently used is prepared again, the others not', () => {
    const db = new Database(':memory:')
    cacheStatements(db, 2)
    const a = db.prepare('SELECT 1')
    const b = db.prepare('SELECT 2')
    expect(db.prepare('SELECT 1')).toBe(a) // a is now the most recent
    db.prepare('SELECT 3') // lets b go
    expect(db.prepare('SELECT 1')).toBe(a)
    const b2 = db.prepare('SELECT 2')
    expect(b2).not.toBe(b)
    // A statement let go still runs for whoever holds it.
    expect(b.values()).toEqual([[2]])
    expect(b2.values()).toEqual([[2]])
  })

  test("a statement prepared with bound values is its caller's own, not shared", () => {
    const db = new Database(':memory:')
    cacheStatements(db)
    const bound = db.prepare('SELECT ? AS x', [7])
    expect(db.prepare('SELECT ? AS x', [7])).not.toBe(bound)
    expect(db.prepare('SELECT ? AS x')).not.toBe(bound)
  })
})
