import { afterAll, describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { AuditRepo } from '../../src/features/audit/audit.repo'
import { sha256Hex } from '../../src/platform/crypto/hash'
import { openDatabase } from '../../src/platform/db/db'
import { connectPostgres } from '../../src/platform/db/open-postgres'
import { sqliteStore } from '../../src/platform/db/store'
import { type TestApp, testApp } from '../helpers/app'
import { bearer, mintKey, signUp } from './accounts.fixture'

// Issue 36: the audit log is tamper-evident. Each workspace's rows form a hash chain; a row changed,
// removed or slipped in is found by GET /v1/audit/verify, the database refuses updates and deletes,
// rows written before the chain existed are chained deterministically, and two processes appending
// at once never fork a chain.

interface Row {
  id: string
  workspace_id: string
  seq: number | null
  actor_type: string
  actor_id: string | null
  action: string
  target_type: string | null
  target_id: string | null
  details: string
  ip: string | null
  request_id: string | null
  created_at: number
  prev_hash: string | null
  hash: string | null
}

const apps: TestApp[] = []
afterAll(() => {
  for (const a of apps) a.close()
})

function app(): TestApp {
  const t = testApp({ env: { ENGRAM_PASSWORD_MEMORY_KIB: '1024' } })
  apps.push(t)
  return t
}

function chain(t: TestApp, workspaceId: string): Promise<Row[]> {
  return t.sql.all<Row>('SELECT * FROM audit_events WHERE workspace_id = ? ORDER BY seq', workspaceId)
}

/** The documented canonical form (docs/governance.md), computed here on its own, as an outside checker would. */
function expectedHash(r: Row): string {
  return sha256Hex(
    JSON.stringify([
      'engram.audit.v1',
      r.id,
      r.workspace_id,
      r.seq,
      r.actor_type,
      r.actor_id,
      r.action,
      r.target_type,
      r.target_id,
      r.details,
      r.ip,
      r.request_id,
      r.created_at,
      r.prev_hash,
    ]),
  )
}

async function verify(t: TestApp, token: string) {
  const res = await t.request('/v1/audit/verify', { headers: bearer(token) })
  expect(res.status).toBe(200)
  return (await res.json()) as {
    ok: boolean
    checked: number
    first_broken: { id: string; seq: number | null; reason: string } | null
    head: { seq: number; hash: string } | null
  }
}

/** Runs SQL past the append-only triggers, as someone with the database could. */
async function tamper(t: TestApp, sql: string, ...params: (string | number)[]): Promise<void> {
  const on = t.sql.engine === 'postgres' ? ' ON audit_events' : ''
  await t.sql.run(`DROP TRIGGER audit_events_no_update${on}`)
  await t.sql.run(`DROP TRIGGER audit_events_no_delete${on}`)
  await t.sql.run(sql, ...params)
}

describe('the chain', () => {
  test("each row holds the next place and the previous row's hash, and its hash is the documented one", async () => {
    const t = app()
    const a = await signUp(t)
    for (let i = 0; i < 4; i++) await mintKey(t, a.token, ['query'])
    const rows = await chain(t, a.workspaceId)
    expect(rows.length).toBe(5)
    rows.forEach((r, i) => {
      expect(r.seq).toBe(i + 1)
      expect(r.prev_hash).toBe(i === 0 ? null : rows[i - 1]!.hash)
      expect(r.hash).toBe(expectedHash(r))
    })
    expect(await verify(t, a.token)).toEqual({
      ok: true,
      checked: 5,
      first_broken: null,
      head: { seq: 5, hash: rows[4]!.hash! },
    })
    // The API shows the same places and hashes.
    const listed = (await (await t.request('/v1/audit', { headers: bearer(a.token) })).json()) as {
      items: { seq: number; hash: string; prev_hash: string | null }[]
    }
    expect(listed.items.map((e) => [e.seq, e.hash, e.prev_hash])).toEqual(
      [...rows].reverse().map((r) => [r.seq, r.hash, r.prev_hash]),
    )
  })

  test('workspaces have chains of their own', async () => {
    const t = app()
    const a = await signUp(t)
    const b = await signUp(t)
    await mintKey(t, a.token, ['query'])
    await mintKey(t, b.token, ['query'])
    expect((await chain(t, a.workspaceId)).map((r) => r.seq)).toEqual([1, 2])
    expect((await chain(t, b.workspaceId)).map((r) => r.seq)).toEqual([1, 2])
    expect((await chain(t, b.workspaceId))[0]!.prev_hash).toBeNull()
  })

  test('no code outside the audit feature names the table, and its repo never deletes nor updates a chained row', () => {
    const src = resolve(import.meta.dir, '../../src')
    const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'))
    const naming = files.filter((f) =>
      /\baudit_events\b|\bauditEvents\b/.test(readFileSync(join(src, f), 'utf8')),
    )
    expect(naming.sort()).toEqual([
      'features/audit/audit.chain.ts',
      'features/audit/audit.repo.ts',
      'features/audit/audit.tables.ts',
    ])
    const repo = readFileSync(join(src, 'features/audit/audit.repo.ts'), 'utf8')
    expect(repo).not.toMatch(/\.delete\(|DELETE /)
    // The only update: chaining rows that have no hash yet.
    expect(repo.match(/\.update\(/g)).toHaveLength(1)
    expect(repo).toMatch(
      /\.update\(t\)\s*\.set\(\{ seq: placed\.seq, prevHash: placed\.prevHash, hash \}\)\s*\.where\(and\(eq\(t\.id, r\.id\), isNull\(t\.hash\)\)\)/,
    )
  })

  test('the database refuses to update or delete an audit row', async () => {
    const t = app()
    const a = await signUp(t)
    await expect(t.sql.run("UPDATE audit_events SET details = '{}'")).rejects.toThrow(
      'audit_events is append-only',
    )
    await expect(t.sql.run('DELETE FROM audit_events')).rejects.toThrow('audit_events is append-only')
    expect((await verify(t, a.token)).ok).toBe(true)
  })
})

describe('verify finds tampering', () => {
  test('a row altered in the database: its own hash no longer matches', async () => {
    const t = app()
    const a = await signUp(t)
    for (let i = 0; i < 3; i++) await mintKey(t, a.token, ['query'])
    const victim = (await chain(t, a.workspaceId))[2]!
    await tamper(t, 'UPDATE audit_events SET details = \'{"name":"innocent"}\' WHERE id = ?', victim.id)
    expect(await verify(t, a.token)).toEqual({
      ok: false,
      checked: 3,
      first_broken: { id: victim.id, seq: 3, reason: 'hash_mismatch' },
      head: { seq: 2, hash: (await chain(t, a.workspaceId))[1]!.hash! },
    })
  })

  test('an actor, address or time changed is found the same way', async () => {
    for (const change of [
      "actor_id = 'usr_someone_else'",
      "ip = '203.0.113.9'",
      'created_at = created_at + 1',
    ]) {
      const t = app()
      const a = await signUp(t)
      await mintKey(t, a.token, ['query'])
      const victim = (await chain(t, a.workspaceId))[1]!
      await tamper(t, `UPDATE audit_events SET ${change} WHERE id = ?`, victim.id)
      expect((await verify(t, a.token)).first_broken).toEqual({
        id: victim.id,
        seq: 2,
        reason: 'hash_mismatch',
      })
    }
  })

  test('a row altered with its hash recomputed breaks the link of the next one', async () => {
    const t = app()
    const a = await signUp(t)
    for (let i = 0; i < 3; i++) await mintKey(t, a.token, ['query'])
    const [, victim, next] = await chain(t, a.workspaceId)
    const forged = { ...victim!, action: 'auth.sign_in' }
    await tamper(
      t,
      'UPDATE audit_events SET action = ?, hash = ? WHERE id = ?',
      forged.action,
      expectedHash(forged),
      victim!.id,
    )
    expect((await verify(t, a.token)).first_broken).toEqual({
      id: next!.id,
      seq: 3,
      reason: 'prev_hash_mismatch',
    })
  })

  test('a row removed leaves a gap', async () => {
    const t = app()
    const a = await signUp(t)
    for (let i = 0; i < 3; i++) await mintKey(t, a.token, ['query'])
    const [, victim, next] = await chain(t, a.workspaceId)
    await tamper(t, 'DELETE FROM audit_events WHERE id = ?', victim!.id)
    expect(await verify(t, a.token)).toMatchObject({
      ok: false,
      checked: 2,
      first_broken: { id: next!.id, seq: 3, reason: 'seq_gap' },
    })
  })

  test("another workspace's tampering does not touch this chain", async () => {
    const t = app()
    const a = await signUp(t)
    const b = await signUp(t)
    await mintKey(t, b.token, ['query'])
    await tamper(t, "UPDATE audit_events SET details = '{}' WHERE workspace_id = ?", b.workspaceId)
    expect((await verify(t, a.token)).ok).toBe(true)
    expect((await verify(t, b.token)).ok).toBe(false)
  })
})

describe('rows written before the chain', () => {
  /** Audit rows as the server wrote them before migration 0023: no place, no hash. */
  async function legacy(t: TestApp, workspaceId: string): Promise<void> {
    const insert = (id: string, action: string, at: number) =>
      t.sql.run(
        `INSERT INTO audit_events (id, workspace_id, actor_type, actor_id, action, details, created_at)
         VALUES (?, ?, 'user', 'usr_old', ?, '{}', ?)`,
        id,
        workspaceId,
        action,
        at,
      )
    // Written out of order: chaining goes by time, then id.
    await insert('aud_c', 'api_key.revoked', 3000)
    await insert('aud_a', 'auth.sign_in', 1000)
    await insert('aud_b2', 'api_key.created', 2000)
    await insert('aud_b1', 'api_key.created', 2000)
  }

  test('are chained at start-up, oldest first, the same way every time, before new rows', async () => {
    const hashes: string[][] = []
    for (const _ of [1, 2]) {
      const t = app()
      await legacy(t, 'ws_legacy')
      await t.start({})
      const rows = await chain(t, 'ws_legacy')
      expect(rows.map((r) => [r.id, r.seq])).toEqual([
        ['aud_a', 1],
        ['aud_b1', 2],
        ['aud_b2', 3],
        ['aud_c', 4],
      ])
      rows.forEach((r, i) => {
        expect(r.prev_hash).toBe(i === 0 ? null : rows[i - 1]!.hash)
        expect(r.hash).toBe(expectedHash(r))
      })
      hashes.push(rows.map((r) => r.hash!))
      await t.stop()
    }
    expect(hashes[0]).toEqual(hashes[1]!)
  })

  test('a workspace read before start-up chained its old rows chains them first, then appends', async () => {
    const t = app()
    const a = await signUp(t)
    // The sign-up row is chained; rows of an older build appear unchained beside it.
    await t.sql.run(
      `INSERT INTO audit_events (id, workspace_id, actor_type, actor_id, action, details, created_at)
         VALUES ('aud_old', ?, 'user', ?, 'auth.sign_in', '{}', 1)`,
      a.workspaceId,
      a.userId,
    )
    const report = await verify(t, a.token)
    expect(report).toMatchObject({ ok: true, checked: 2 })
    await mintKey(t, a.token, ['query'])
    expect((await chain(t, a.workspaceId)).map((r) => [r.action, r.seq])).toEqual([
      ['auth.sign_in', 1],
      ['auth.sign_in', 2],
      ['api_key.created', 3],
    ])
    expect((await verify(t, a.token)).ok).toBe(true)
  })
})

describe('concurrent writers', () => {
  test('two processes appending to one workspace at once leave one unbroken chain', async () => {
    const t = app()
    const a = await signUp(t)
    const file = join(t.dataDir, 'engram.db')
    const repoPath = resolve(import.meta.dir, '../../src/features/audit/audit.repo.ts')
    const dbPath = resolve(import.meta.dir, '../../src/platform/db/db.ts')
    const storePath = resolve(import.meta.dir, '../../src/platform/db/store.ts')
    const pgPath = resolve(import.meta.dir, '../../src/platform/db/open-postgres.ts')
    // Each process's store: the SQLite file on a connection of its own, or a pool of its own on the
    // app's PostgreSQL database.
    const url = t.databaseUrl
    const N = 150
    // The other process: the same repo on its own connection, as a second server or `engram mcp`.
    const script = `
      const { AuditRepo } = await import(${JSON.stringify(repoPath)})
      const { openDatabase } = await import(${JSON.stringify(dbPath)})
      const { sqliteStore } = await import(${JSON.stringify(storePath)})
      const { connectPostgres } = await import(${JSON.stringify(pgPath)})
      const url = ${JSON.stringify(url)}
      const pg = url ? connectPostgres(url, { max: 2 }) : null
      const store = pg ? pg.store : sqliteStore(openDatabase(${JSON.stringify(file)}))
      const repo = new AuditRepo(store)
      for (let i = 0; i < ${N}; i++) {
        await store.unit(() => repo.append({ id: 'aud_other_' + i, workspaceId: ${JSON.stringify(a.workspaceId)}, actorType: 'system', action: 'test.other', createdAt: i }))
        if (i % 10 === 0) await new Promise((r) => setImmediate(r))
      }
      await pg?.close()
    `
    const other = Bun.spawn([process.execPath, '-e', script], { stderr: 'pipe' })
    const pg = url ? connectPostgres(url, { max: 2 }) : null
    const store = pg ? pg.store : sqliteStore(openDatabase(file))
    const mine = new AuditRepo(store)
    for (let i = 0; i < N; i++) {
      await store.unit(() =>
        mine.append({
          id: `aud_mine_${i}`,
          workspaceId: a.workspaceId,
          actorType: 'system',
          action: 'test.mine',
          createdAt: i,
        }),
      )
      if (i % 10 === 0) await new Promise((r) => setImmediate(r))
    }
    await pg?.close()
    expect(await other.exited).toBe(0)
    const rows = await chain(t, a.workspaceId)
    expect(rows.length).toBe(1 + 2 * N)
    expect(rows.map((r) => r.seq)).toEqual(rows.map((_, i) => i + 1))
    expect(await verify(t, a.token)).toMatchObject({ ok: true, checked: 1 + 2 * N, first_broken: null })
  })

  test('a second row for a place already taken is refused, so a chain cannot fork', async () => {
    const t = app()
    const a = await signUp(t)
    const first = (await chain(t, a.workspaceId))[0]!
    // SQLite says `UNIQUE constraint failed`, PostgreSQL `duplicate key value violates unique constraint`.
    await expect(
      t.sql.run(
        `INSERT INTO audit_events (id, workspace_id, actor_type, action, details, created_at, seq, prev_hash, hash)
         VALUES ('aud_fork', ?, 'system', 'x', '{}', 1, 1, NULL, ?)`,
        a.workspaceId,
        first.hash!,
      ),
    ).rejects.toThrow(/UNIQUE|unique constraint/)
  })
})
