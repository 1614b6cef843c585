import { Type } from '@sinclair/typebox'
import { sql } from 'drizzle-orm'
import { iso } from '../../src/platform/clock/clock'
import { newId } from '../../src/platform/crypto/random'
import type { Db } from '../../src/platform/db/db'
import { fail } from '../../src/platform/errors/errors'
import { defineRoute, type RouteDef, reply } from '../../src/platform/http/route'
import { keysetPage } from '../../src/platform/paging/paging'
import { type TestApp, testApp } from '../helpers/app'

/**
 * A tiny "widgets" feature used only to exercise the HTTP conventions through the real mount:
 * a JSON create, a create whose answer carries a secret, a paginated list, a form route, a
 * protected route and a route that crashes.
 */
export interface WidgetFixture {
  app: TestApp
  /** Number of times the create handler actually ran. */
  executions: () => number
  /** While set, creates wait on this promise (lets a test hold a request in flight). */
  hold: (p: Promise<void> | null) => void
  count: () => number
  insert: (name: string) => void
}

const Widget = Type.Object({ id: Type.String(), name: Type.String(), created_at: Type.String() })

export function widgetApp(env: Record<string, string> = {}): WidgetFixture {
  let runs = 0
  let gate: Promise<void> | null = null
  // The table is created after migrations; routes reach it lazily through `db`.
  let db: Db | null = null
  let app: TestApp | null = null
  const insert = (name: string) => {
    const now = app!.clock.now()
    db!.$client
      .query('INSERT INTO widgets (id, name, created_at) VALUES (?, ?, ?)')
      .run(newId(app!.deps.random, 'wid'), name, now.getTime())
    // Every row gets its own instant so the order is total and deterministic.
    app!.clock.advance(1)
  }
  const routes: RouteDef[] = [
    defineRoute({
      method: 'POST',
      path: '/widgets',
      auth: 'none',
      summary: 'Create a widget',
      tags: ['test'],
      body: Type.Object({
        name: Type.String({ minLength: 1, maxLength: 50 }),
        size: Type.Optional(Type.Integer()),
      }),
      response: Widget,
      handler: async ({ body }) => {
        runs++
        if (gate) await gate
        if (body.name === 'boom') throw new Error('kaboom: secret internals')
        // A statement the database refuses, given a value that must not reach the log.
        if (body.name === 'bad statement')
          await db!.run(sql`INSERT INTO no_such_table VALUES (${'s3cret-value'})`)
        if (body.name === 'taken') throw fail('conflict', 'Name taken.')
        if (body.name === 'busy') throw fail('rate_limited', undefined, { limit: 'widgets', retry_after: 5 })
        insert(body.name)
        const row = db!.$client
          .query<{ id: string; name: string; created_at: number }, []>(
            'SELECT id, name, created_at FROM widgets ORDER BY created_at DESC LIMIT 1',
          )
          .get()!
        return reply(201, { id: row.id, name: row.name, created_at: iso(new Date(row.created_at)) })
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/widget-keys',
      auth: 'none',
      // Like `POST /api-keys`: the answer carries a secret, so it is never stored for a replay.
      idempotent: 'once',
      summary: 'Create a widget and answer its secret',
      tags: ['test'],
      body: Type.Object({ name: Type.String({ minLength: 1, maxLength: 50 }) }),
      handler: async ({ body }) => {
        runs++
        if (gate) await gate
        if (body.name === 'taken') throw fail('conflict', 'Name taken.')
        insert(body.name)
        return reply(201, { name: body.name, secret: `wsk_${runs}` })
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/widgets',
      auth: 'none',
      summary: 'List widgets, newest first',
      tags: ['test'],
      query: Type.Object({ prefix: Type.Optional(Type.String()) }),
      list: true,
      response: Widget,
      handler: ({ page }) => {
        const c = db!.$client
        type Row = { id: string; name: string; created_at: number }
        const total = c.query<{ n: number }, []>('SELECT count(*) AS n FROM widgets').get()!.n
        const map = (r: Row) => ({ id: r.id, name: r.name, created_at: iso(new Date(r.created_at)) })
        if (!page) {
          const rows = c.query<Row, []>('SELECT * FROM widgets ORDER BY created_at DESC, id DESC').all()
          return { items: rows.map(map), total, nextCursor: null }
        }
        const after = page.after ?? [Number.MAX_SAFE_INTEGER, '']
        const rows = c
          .query<Row, [number, number, string, number]>(
            `SELECT * FROM widgets WHERE created_at < ? OR (created_at = ? AND id < ?)
             ORDER BY created_at DESC, id DESC LIMIT ?`,
          )
          .all(after[0] as number, after[0] as number, after[1] as string, page.limit + 1)
        return keysetPage(rows, page.limit, (r) => [r.created_at, r.id], map, total)
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/form',
      auth: 'none',
      summary: 'A form route',
      tags: ['test'],
      bodyKind: 'form',
      body: Type.Object({ username: Type.String({ minLength: 1 }), password: Type.String({ minLength: 1 }) }),
      handler: ({ body }) => ({ username: body.username }),
    }),
    defineRoute({
      method: 'GET',
      path: '/private',
      auth: 'bearer',
      summary: 'A protected route',
      tags: ['test'],
      handler: () => ({ ok: true }),
    }),
  ]
  app = testApp({ env, extraRoutes: routes })
  db = app.db
  db.$client.exec(
    'CREATE TABLE widgets (id TEXT PRIMARY KEY, name TEXT NOT NULL, created_at INTEGER NOT NULL)',
  )
  return {
    app,
    executions: () => runs,
    hold: (p) => {
      gate = p
    },
    count: () => db!.$client.query<{ n: number }, []>('SELECT count(*) AS n FROM widgets').get()!.n,
    insert,
  }
}
