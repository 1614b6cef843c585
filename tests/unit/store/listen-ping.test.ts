import { afterEach, describe, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { eq, sql } from 'drizzle-orm'
import { migrations as pgMigrations } from '../../../migrations-pg/index'
import { workspaces } from '../../../src/features/workspaces/workspaces.tables'
import { type OpenPostgres, openPostgres } from '../../../src/platform/db/open-postgres'
import { rawRows } from '../../../src/platform/db/raw'
import type { Store } from '../../../src/platform/db/store'
import { StoreMemo } from '../../../src/platform/db/store-memo'
import { testPostgres } from '../../helpers/postgres'
import { engines } from '../../helpers/stores'

// A PostgreSQL process pings itself on the pool and hears the ping on its listening connection
// (self-ping.ts): while the pings come back its memos are trusted; when they stop coming back (the
// connection hangs without closing, or the database is down) every memo read goes to the database,
// until a ping comes back. The ticks are driven here by hand (no timer), and every wait is on a
// promise. SQLite has no listening connection: every commit moves the wal-index counter it reads.

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close()
})

/** A process's store on a fresh database, ticked by hand; another process's; and a plain connection. */
async function open(): Promise<{ me: OpenPostgres; other: OpenPostgres; admin: SQL; url: string }> {
  const pg = await testPostgres()
  if (!pg.available) throw new Error(pg.reason)
  const url = await pg.freshDatabase()
  // One pooled connection: the test knows which backend serves this process's queries.
  const me = await openPostgres(url, pgMigrations, { max: 1, pingEvery: 0 })
  closers.push(me.close)
  const other = await openPostgres(url, pgMigrations, { max: 1, pingEvery: 0 })
  closers.push(other.close)
  const admin = new SQL({ url, max: 1 })
  closers.push(() => admin.close())
  const ws = me.store.table(workspaces)
  await me.store.unit(async () => {
    await me.store.db.insert(ws).values({ id: 'ws_1', name: 'a', plan: 'beta', createdAt: 1, updatedAt: 1 })
  })
  return { me, other, admin, url }
}

function nameMemo(store: Store, reads: string[]) {
  const ws = store.table(workspaces)
  return new StoreMemo(store, async (id) => {
    reads.push(id)
    return (await store.db.select({ name: ws.name }).from(ws).where(eq(ws.id, id)))[0]?.name
  })
}

async function rename(store: Store, name: string): Promise<void> {
  const ws = store.table(workspaces)
  await store.unit(async () => {
    await store.db.update(ws).set({ name }).where(eq(ws.id, 'ws_1'))
  })
}

/** One tick whose ping (and everything told before it) has come back. */
async function pingedBack(me: OpenPostgres): Promise<void> {
  await me.ping.tick()
  await me.ping.answered()
}

for (const engine of await engines()) {
  const why = engine.name === 'sqlite' ? 'SQLite has no listening connection to lose' : engine.skip
  describe.skipIf(why !== null)(`a process's ping to itself on ${engine.name}`, () => {
    test('a listening connection that hangs without closing stops the trust after two unanswered pings, and its next ping restores it', async () => {
      const { me, other, admin } = await open()
      const reads: string[] = []
      const memo = nameMemo(me.store, reads)
      expect(await memo.get('ws_1')).toBe('a')
      for (let i = 0; i < 3; i++) await pingedBack(me)
      expect(await memo.get('ws_1')).toBe('a')
      expect(reads).toHaveLength(1)
      // The listening backend stops (as a server that hangs, or a network that drops packets without
      // a reset, would look): nothing arrives and nothing closes. The test's cluster runs on this
      // machine as this user, or as `postgres` under root (tests/helpers/postgres.ts): it may signal it.
      const [listening] = await admin`SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND query LIKE 'LISTEN%'`
      const pid = Number(listening.pid)
      process.kill(pid, 'SIGSTOP')
      let stopped = true
      try {
        await me.ping.tick()
        await me.ping.tick()
        // Another process commits; its notification does not arrive. Two pings are unanswered, the
        // second for less than an interval: the memo still trusts what it kept (the window).
        await rename(other.store, 'b')
        expect(await memo.get('ws_1')).toBe('a')
        expect(reads).toHaveLength(1)
        // The third tick finds two pings missing: from now every read goes to the database.
        await me.ping.tick()
        expect(await memo.get('ws_1')).toBe('b')
        expect(await memo.get('ws_1')).toBe('b')
        expect(reads).toHaveLength(3)
        await me.ping.tick()
        expect(await memo.get('ws_1')).toBe('b')
        expect(reads).toHaveLength(4)
        process.kill(pid, 'SIGCONT')
        stopped = false
      } finally {
        if (stopped) process.kill(pid, 'SIGCONT')
      }
      // The backend goes on: the pings held back, and the next, come back; the memo trusts again.
      await pingedBack(me)
      expect(await memo.get('ws_1')).toBe('b')
      expect(await memo.get('ws_1')).toBe('b')
      expect(reads).toHaveLength(5)
      // And it hears commits again.
      await rename(other.store, 'c')
      await pingedBack(me)
      expect(await memo.get('ws_1')).toBe('c')
      expect(reads).toHaveLength(6)
    })

    test('a ping that cannot be sent (the database refuses connections) stops the trust at once', async () => {
      const { me, url } = await open()
      // A database's connections are refused from another database's connection.
      const elsewhere = new URL(url)
      elsewhere.pathname = '/postgres'
      const admin = new SQL({ url: elsewhere.toString(), max: 1 })
      closers.push(() => admin.close())
      const reads: string[] = []
      const memo = nameMemo(me.store, reads)
      await pingedBack(me)
      expect(await memo.get('ws_1')).toBe('a')
      expect(await memo.get('ws_1')).toBe('a')
      expect(reads).toHaveLength(1)
      const [{ pid, db }] = await rawRows(
        me.store,
        sql`SELECT pg_backend_pid() AS pid, current_database() AS db`,
      )
      // No connection to the database is accepted, and the process's pooled one ends.
      await admin.unsafe(`ALTER DATABASE "${db}" ALLOW_CONNECTIONS false`)
      try {
        await admin`SELECT pg_terminate_backend(${Number(pid)})`
        const before = me.store.commits.version()
        expect(me.store.commits.version()).toBe(before)
        await me.ping.tick()
        // Every look is now a change: a memo reads every time (here it could not: the database is away).
        expect(me.store.commits.version()).not.toBe(me.store.commits.version())
      } finally {
        await admin.unsafe(`ALTER DATABASE "${db}" ALLOW_CONNECTIONS true`)
      }
      expect(await memo.get('ws_1')).toBe('a')
      expect(reads).toHaveLength(2)
      // The database is back and the listening connection never left: the next ping restores the trust.
      await pingedBack(me)
      expect(await memo.get('ws_1')).toBe('a')
      expect(await memo.get('ws_1')).toBe('a')
      expect(reads).toHaveLength(3)
    })
  })
}
