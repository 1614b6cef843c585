// The data layer on both engines, side by side in one run: a keyed read and a one-row unit of work
// through the store (drizzle's builder, awaited: what a repository on the store does), on SQLite
// and on a local PostgreSQL (the tests' private cluster: loopback, fsync off, so the figures are
// the client's and the engine's CPU, not a disk's or a network's). For reference, the same keyed
// read prepared on the store (platform/db/prepared.ts), and as a prepared bun:sqlite statement, what
// the synchronous hot paths use. Prints figures only.
import { and, eq, sql } from 'drizzle-orm'
import { LegalRepo } from '../src/features/legal/legal.repo'
import { legalAcceptances } from '../src/features/legal/legal.tables'
import { Prepared } from '../src/platform/db/prepared'
import type { Store } from '../src/platform/db/store'
import { engines, seedTenants } from '../tests/helpers/stores'

const ROWS = Number(process.env.BENCH_STORE_ROWS ?? 10_000)
const READS = Number(process.env.BENCH_STORE_READS ?? 5_000)
const WRITES = Number(process.env.BENCH_STORE_WRITES ?? 1_000)
const T0 = 1_764_400_000_000

function row(i: number) {
  return {
    id: `lga_${i}`,
    workspaceId: `ws_${i % 10}`,
    document: 'terms',
    version: `v${i}`,
    title: 'Terms',
    sha256: 'ab'.repeat(32),
    actorType: 'user',
    actorId: 'usr_1',
    address: '127.0.0.1',
    acceptedAt: T0 + i,
  }
}

/** p50 and p99 of `n` timed calls (µs), after `n / 10` untimed ones. */
async function time(n: number, f: (i: number) => Promise<unknown> | unknown): Promise<string> {
  for (let i = 0; i < n / 10; i++) await f(i)
  const took: number[] = []
  for (let i = 0; i < n; i++) {
    const t = performance.now()
    await f(i)
    took.push((performance.now() - t) * 1000)
  }
  took.sort((a, b) => a - b)
  const at = (q: number) => took[Math.min(took.length - 1, Math.floor(q * took.length))]!.toFixed(1)
  return `p50 ${at(0.5)} µs, p99 ${at(0.99)} µs`
}

async function seed(store: Store): Promise<void> {
  await seedTenants(store, { workspaces: Array.from({ length: 10 }, (_, i) => `ws_${i}`), at: T0 })
  const repo = new LegalRepo(store)
  for (let from = 0; from < ROWS; from += 500) {
    await store.unit(async () => {
      for (let i = from; i < Math.min(ROWS, from + 500); i++) await repo.insert(row(i))
    })
  }
}

for (const engine of await engines()) {
  if (engine.skip) {
    console.log(`${engine.name}: skipped (${engine.skip})`)
    continue
  }
  const o = await engine.open()
  try {
    await seed(o.store)
    const repo = new LegalRepo(o.store)
    const read = await time(READS, (i) => {
      const k = (i * 7919) % ROWS
      return repo.find(`ws_${k % 10}`, 'terms', `v${k}`)
    })
    const t = o.store.table(legalAcceptances)
    const find = new Prepared(o.store, (db) =>
      db
        .select()
        .from(t)
        .where(
          and(
            eq(t.workspaceId, sql.placeholder('ws')),
            eq(t.document, 'terms'),
            eq(t.version, sql.placeholder('version')),
          ),
        )
        .limit(1)
        .prepare(),
    )
    const prepared = await time(READS, (i) => {
      const k = (i * 7919) % ROWS
      return find.execute({ ws: `ws_${k % 10}`, version: `v${k}` })
    })
    let next = ROWS
    const write = await time(WRITES, () => {
      const r = row(next++)
      return o.store.unit(() => repo.insert(r))
    })
    console.log(
      `${engine.name}: keyed read (store, builder) ${read}; (store, prepared) ${prepared}; one-row unit ${write}`,
    )
    if (engine.name === 'sqlite') {
      const client = o.store.db.$client
      const stmt = client.prepare(
        'SELECT * FROM legal_acceptances WHERE workspace_id = ? AND document = ? AND version = ? LIMIT 1',
      )
      const sync = await time(READS, (i) => {
        const k = (i * 7919) % ROWS
        return stmt.get(`ws_${k % 10}`, 'terms', `v${k}`)
      })
      console.log(`sqlite: keyed read (bun:sqlite prepared, synchronous) ${sync}`)
    }
  } finally {
    await o.close()
  }
}
