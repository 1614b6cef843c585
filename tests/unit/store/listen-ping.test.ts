import { afterEach, describe, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { eq, sql } from 'drizzle-orm'
import { migrations as pgMigrations } from '../../../migrations-pg/index'
import { workspaces } from '../../../src/features/workspaces/workspaces.tables'
import { type OpenPostgres, openPostgres } from '../../../src/platform/db/open-postgres'
import { rawRows } from '../../../src/platform/db/raw'
import { pingChannel } from '../../../src/platform/db/self-ping'
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

/** What a test opens: the stores of two processes on a fresh database, and a plain connection to it. */
interface Opened {
  /** The process under test: one pooled connection, ticked by hand. */
  me: OpenPostgres
  other: OpenPostgres
  admin: SQL
  url: string
  db: string
  /** The backend of `me`'s listening connection. */
  listener: number
  /** The backend of `me`'s one pooled connection. */
  pooled: number
}

async function open(): Promise<Opened> {
  const pg = await testPostgres()
  if (!pg.available) throw new Error(pg.reason)
  const url = await pg.freshDatabase()
  const me = await openPostgres(url, pgMigrations, { max: 1, pingEvery: 0 })
  closers.push(me.close)
  const admin = new SQL({ url, max: 1 })
  closers.push(() => admin.close())
  // Found before the other process listens too.
  const listening = await admin`SELECT pid, current_database() AS db FROM pg_stat_activity
    WHERE datname = current_database() AND query LIKE 'LISTEN%'`
  expect(listening).toHaveLength(1)
  const other = await openPostgres(url, pgMigrations, { max: 1, pingEvery: 0 })
  closers.push(other.close)
  const [pooled] = await rawRows(me.store, sql`SELECT pg_backend_pid() AS pid`)
  const ws = me.store.table(workspaces)
  await me.store.unit(async () => {
    await me.store.db.insert(ws).values({ id: 'ws_1', name: 'a', plan: 'beta', createdAt: 1, updatedAt: 1 })
  })
  const { pid, db } = listening[0]
  return { me, other, admin, url, db: String(db), listener: Number(pid), pooled: Number(pooled?.pid) }
}

/** A plain connection to the cluster's `postgres` database: a database's connections are refused from another's. */
function elsewhere(url: string): SQL {
  const other = new URL(url)
  other.pathname = '/postgres'
  const admin = new SQL({ url: other.toString(), max: 1 })
  closers.push(() => admin.close())
  return admin
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
      const { me, other, listener: pid } = await open()
      const reads: string[] = []
      const memo = nameMemo(me.store, reads)
      expect(await memo.get('ws_1')).toBe('a')
      for (let i = 0; i < 3; i++) await pingedBack(me)
      expect(await memo.get('ws_1')).toBe('a')
      expect(reads).toHaveLength(1)
      // The listening backend stops (as a server that hangs, or a network that drops packets without
      // a reset, would look): nothing arrives and nothing closes. The test's cluster runs on this
      // machine as this user, or as `postgres` under root (tests/helpers/postgres.ts): it may signal it.
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

    test('between a drop of the listening connection and its reconnect the pings stop the trust, and the reconnect restores it', async () => {
      const { me, url, db, listener } = await open()
      const admin = elsewhere(url)
      const reads: string[] = []
      const memo = nameMemo(me.store, reads)
      await pingedBack(me)
      expect(await memo.get('ws_1')).toBe('a')
      expect(await memo.get('ws_1')).toBe('a')
      expect(reads).toHaveLength(1)
      // The listening connection ends and cannot come back yet (Bun retries with backoff); the pooled
      // one stays, so the pings are sent, and nobody hears them.
      await admin.unsafe(`ALTER DATABASE "${db}" ALLOW_CONNECTIONS false`)
      let refused = true
      try {
        await admin`SELECT pg_terminate_backend(${listener})`
        await me.ping.tick()
        await me.ping.tick()
        expect(await memo.get('ws_1')).toBe('a')
        expect(reads).toHaveLength(1)
        await me.ping.tick()
        expect(await memo.get('ws_1')).toBe('a')
        expect(await memo.get('ws_1')).toBe('a')
        expect(reads).toHaveLength(3)
        // Connections are accepted again: Bun listens again, and that restores the trust.
        const relistened = me.store.commits.next()
        await admin.unsafe(`ALTER DATABASE "${db}" ALLOW_CONNECTIONS true`)
        refused = false
        await relistened
        // Both channels are listened on again (the ping's a moment after the commits'; a tick between
        // the two would find its pings missing, and cost the memos one more read).
        await me.ping.answered()
      } finally {
        if (refused) await admin.unsafe(`ALTER DATABASE "${db}" ALLOW_CONNECTIONS true`)
      }
      expect(await memo.get('ws_1')).toBe('a')
      expect(await memo.get('ws_1')).toBe('a')
      expect(reads).toHaveLength(4)
      await pingedBack(me)
      expect(await memo.get('ws_1')).toBe('a')
      expect(reads).toHaveLength(4)
    })

    test('a ping that cannot be sent (the database refuses connections) stops the trust at once', async () => {
      const { me, url, db, pooled } = await open()
      const admin = elsewhere(url)
      const reads: string[] = []
      const memo = nameMemo(me.store, reads)
      await pingedBack(me)
      expect(await memo.get('ws_1')).toBe('a')
      expect(await memo.get('ws_1')).toBe('a')
      expect(reads).toHaveLength(1)
      // No connection to the database is accepted, and the process's pooled one ends.
      await admin.unsafe(`ALTER DATABASE "${db}" ALLOW_CONNECTIONS false`)
      try {
        await admin`SELECT pg_terminate_backend(${pooled})`
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

test("each process pings on a channel of its own, within PostgreSQL's 63-byte names, so none hears another's", () => {
  const a = pingChannel('4242.0b6c1f9e-1d2a-4c3b-9a8e-7f6d5c4b3a21')
  const b = pingChannel('4243.0b6c1f9e-1d2a-4c3b-9a8e-7f6d5c4b3a21')
  expect(a).not.toBe(b)
  expect(a).toBe(pingChannel('4242.0b6c1f9e-1d2a-4c3b-9a8e-7f6d5c4b3a21'))
  expect(a).toMatch(/^engram_ping_[0-9a-f]{32}$/)
  expect(Buffer.byteLength(a)).toBeLessThanOrEqual(63)
})
