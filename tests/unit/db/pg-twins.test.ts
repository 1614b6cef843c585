import { describe, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { getTableConfig, PgDialect } from 'drizzle-orm/pg-core'
import {
  blob,
  check,
  index,
  integer,
  numeric,
  type SQLiteColumnBuilderBase,
  type SQLiteTable,
  sqliteTable,
  text,
} from 'drizzle-orm/sqlite-core'
import type { documents } from '../../../src/features/corpora/corpora.tables'
import type { enginePassages } from '../../../src/features/engine/engine.tables'
import { pgTwin } from '../../../src/platform/db/pg-tables'
import type { jobs } from '../../../src/platform/jobs/jobs.tables'

// A table's PostgreSQL twin is derived from its SQLite declaration; what the derivation does not
// know how to map the same way on both engines is refused when the twin is made, naming the column.

/** A one-column table around `column`, with an id. */
const tableWith = (name: string, column: SQLiteColumnBuilderBase) =>
  sqliteTable(name, { id: text('id').primaryKey(), column })

describe('pgTwin', () => {
  test.each([
    ['a JSON blob', tableWith('t1', blob('c', { mode: 'json' })), 't1.c: a SQLiteBlobJson column'],
    ['a bigint blob', tableWith('t2', blob('c', { mode: 'bigint' })), 't2.c: a SQLiteBigInt column'],
    ['a numeric column', tableWith('t3', numeric('c')), 't3.c: a SQLiteNumeric column'],
    ['a text length', tableWith('t4', text('c', { length: 10 })), 't4.c: a text length'],
    ['an SQL default', tableWith('t5', integer('c').default(sql`(unixepoch())`)), 't5.c: an SQL default'],
    [
      'a default function',
      tableWith(
        't6',
        text('c').$defaultFn(() => 'x'),
      ),
      't6.c: a default or update function',
    ],
    [
      'a default on a JSON column',
      tableWith('t7', text('c', { mode: 'json' }).default({})),
      't7.c: a default on',
    ],
  ] as [string, SQLiteTable, string][])('refuses %s', (_what, table, message) => {
    expect(() => pgTwin(table)).toThrow(message)
  })

  test('refuses check constraints, expression indexes, conditions with parameters and overlong names', () => {
    const checked = sqliteTable('t8', { n: integer('n') }, (t) => [check('positive', sql`${t.n} > 0`)])
    expect(() => pgTwin(checked)).toThrow('t8: check constraints')
    const expression = sqliteTable('t9', { s: text('s') }, (t) => [index('t9_lower').on(sql`lower(${t.s})`)])
    expect(() => pgTwin(expression)).toThrow('t9 index t9_lower: an expression index')
    const param = sqliteTable('t10', { s: text('s') }, (t) => [
      index('t10_s').on(t.s).where(sql`${t.s} = ${'x'}`),
    ])
    expect(() => pgTwin(param)).toThrow('t10 index t10_s: a condition with parameters')
    const long = sqliteTable('t11', { s: text('s') }, (t) => [index(`t11_${'x'.repeat(60)}`).on(t.s)])
    expect(() => pgTwin(long)).toThrow("longer than PostgreSQL's 63 bytes")
  })

  test('maps keys, foreign keys (to the twin of the table named), indexes and their conditions', () => {
    const parents = sqliteTable('parents', { id: text('id').primaryKey() })
    const children = sqliteTable(
      'children',
      {
        seq: integer('seq').primaryKey({ autoIncrement: true }),
        parentId: text('parent_id').references(() => parents.id, { onDelete: 'cascade' }),
        uniqueId: text('unique_id').notNull().unique(),
        done: integer('done', { mode: 'boolean' }).notNull().default(false),
        size: integer('size').notNull().default(0),
      },
      (t) => [index('children_open').on(t.parentId, t.size).where(sql`${t.done} = false AND size > 0`)],
    )
    const twin = getTableConfig(pgTwin(children))
    expect(pgTwin(children)).toBe(pgTwin(children))
    expect(
      twin.columns.map((c) => [c.name, c.getSQLType(), c.notNull, c.primary, c.default ?? null]),
    ).toEqual([
      ['seq', 'bigint', true, true, null],
      ['parent_id', 'text', false, false, null],
      ['unique_id', 'text', true, false, null],
      ['done', 'boolean', true, false, false],
      ['size', 'bigint', true, false, 0],
    ])
    expect((twin.columns[0] as unknown as { generatedIdentity: unknown }).generatedIdentity).toEqual({
      type: 'byDefault',
    })
    expect(twin.columns[2]!.isUnique).toBe(true)
    const [fk] = twin.foreignKeys
    expect(fk!.reference().foreignTable).toBe(pgTwin(parents))
    expect(fk!.onDelete).toBe('cascade')
    const [idx] = twin.indexes
    expect(new PgDialect().sqlToQuery(idx!.config.where!).sql).toBe('"children"."done" = false AND size > 0')
  })

  test("a twin's rows have its declaration's types (checked by tsc)", () => {
    type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
    const rows: [
      Same<(typeof jobs)['$inferSelect'], ReturnType<typeof pgTwin<typeof jobs>>['$inferSelect']>,
      Same<(typeof jobs)['$inferInsert'], ReturnType<typeof pgTwin<typeof jobs>>['$inferInsert']>,
      Same<(typeof documents)['$inferSelect'], ReturnType<typeof pgTwin<typeof documents>>['$inferSelect']>,
      Same<
        (typeof enginePassages)['$inferInsert'],
        ReturnType<typeof pgTwin<typeof enginePassages>>['$inferInsert']
      >,
    ] = [true, true, true, true]
    expect(rows).toEqual([true, true, true, true])
  })
})
