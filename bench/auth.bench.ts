// `npm run bench auth`: what checking an API key on every request costs. Serves the real app
// (Bun.serve + app.handle, file-backed SQLite) on a loopback port and loads it from a separate
// process: an empty route and a real one (GET /v1/corpora/{id}), each with an API key against a twin
// with no credential, and the same read of a base of 10,000 documents (BENCH_DOCUMENTS) beside the
// empty base. A bare Elysia hello world on its own Bun.serve in the same process is the floor the
// pipeline is measured against (issue 20: the keyed base read at most twice its server CPU a
// request). Prints requests per second, latency percentiles and server CPU time per request.
// `BENCH_CASES=hello,/v1,corpora/{id}` runs only the cases whose names contain one of the words.
// Asserts nothing.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Elysia } from 'elysia'
import { migrations } from '../migrations/index'
import { createApp } from '../src/app'
import { CorpusParams, CorpusResp } from '../src/features/corpora/corpora.schemas'
import { CorporaService, corpusResp } from '../src/features/corpora/corpora.service'
import { systemClock } from '../src/platform/clock/clock'
import { loadConfig } from '../src/platform/config/config.load'
import { cryptoRandom } from '../src/platform/crypto/random'
import { openDatabase } from '../src/platform/db/db'
import { migrate } from '../src/platform/db/migrate'
import { sqliteStore } from '../src/platform/db/store'
import { Outbox } from '../src/platform/events/outbox'
import { defineRoute } from '../src/platform/http/route'
import { createLogger } from '../src/platform/log/log'
import { createObjectStore } from '../src/platform/storage/create-object-store'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 64)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const DOCUMENTS = Number(process.env.BENCH_DOCUMENTS ?? 10_000)
const ONLY = (process.env.BENCH_CASES ?? '')
  .split(',')
  .map((w) => w.trim())
  .filter((w) => w.length > 0)

interface LoadResult {
  requests: number
  errors: number
  seconds: number
  p50: number
  p99: number
}

/** The load generator, run in its own process so it does not share the server's thread. */
async function client(url: string, token: string, seconds: number, concurrency: number): Promise<LoadResult> {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {}
  const latencies: number[] = []
  let errors = 0
  const start = performance.now()
  const end = start + seconds * 1000
  const worker = async () => {
    while (performance.now() < end) {
      const t0 = performance.now()
      const res = await fetch(url, { headers })
      await res.arrayBuffer()
      if (res.status !== 200) errors++
      latencies.push(performance.now() - t0)
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  const elapsed = (performance.now() - start) / 1000
  latencies.sort((a, b) => a - b)
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? 0
  return { requests: latencies.length, errors, seconds: elapsed, p50: pct(0.5), p99: pct(0.99) }
}

async function runLoad(url: string, token: string): Promise<LoadResult & { cpuMicrosPerRequest: number }> {
  const cpu0 = process.cpuUsage()
  const proc = Bun.spawn(
    ['bun', 'run', import.meta.path, 'client', url, token, String(SECONDS), String(CONCURRENCY)],
    {
      stdout: 'pipe',
      stderr: 'inherit',
    },
  )
  const out = await new Response(proc.stdout).text()
  await proc.exited
  const cpu = process.cpuUsage(cpu0)
  const result = JSON.parse(out) as LoadResult
  return { ...result, cpuMicrosPerRequest: (cpu.user + cpu.system) / Math.max(1, result.requests) }
}

async function server(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'engram-bench-'))
  const config = loadConfig({
    env: { ENGRAM_DATA_DIR: dir, ENGRAM_STATUS_CACHE_SECONDS: '60' },
    readFile: () => null,
  })
  const db = openDatabase(join(dir, 'engram.db'))
  migrate(db, migrations)
  // Two routes identical but for their auth requirement isolate what the credential check costs.
  const echo = (auth: 'none' | 'bearer', path: string) =>
    defineRoute({
      method: 'GET',
      path,
      mount: 'v1',
      auth,
      summary: 'bench',
      tags: ['bench'],
      handler: () => ({ ok: true, service: 'engram', version: '1' }),
    })
  // The real `GET /v1/corpora/{id}` handler behind no credential, for the workspace the key belongs to.
  const twin = new CorporaService({
    store: sqliteStore(db),
    clock: systemClock,
    random: cryptoRandom,
    log: createLogger('silent'),
    events: new Outbox(db, systemClock, cryptoRandom),
  })
  let workspaceId = ''
  const openCorpus = defineRoute({
    method: 'GET',
    path: '/bench/corpora/:corpus_id',
    mount: 'v1',
    auth: 'none',
    summary: 'bench',
    tags: ['bench'],
    params: CorpusParams,
    response: CorpusResp,
    handler: async ({ params }) => corpusResp(await twin.get(workspaceId, params.corpus_id)),
  })
  const app = createApp({
    config,
    db,
    clock: systemClock,
    random: cryptoRandom,
    log: createLogger('silent'),
    secret: 'bench-secret-bench-secret-bench-secret-0123',
    objects: createObjectStore(config, dir, { clock: systemClock }),
    extraRoutes: [echo('none', '/bench/open'), echo('bearer', '/bench/keyed'), openCorpus],
  })
  const http = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: app.handle })
  const base = `http://127.0.0.1:${http.port}`
  // The floor: what Bun and Elysia cost a request with no pipeline at all.
  const hello = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: new Elysia().get('/', () => 'hi').handle })
  try {
    const reg = await fetch(`${base}/v1/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        email: 'bench@example.com',
        password: 'bench password',
        workspace_name: 'Bench',
        name: 'B',
      }),
    })
    const session = ((await reg.json()) as { access_token: string }).access_token
    const minted = await fetch(`${base}/v1/api-keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${session}` },
      body: JSON.stringify({ name: 'bench', scopes: ['query'] }),
    })
    const key = ((await minted.json()) as { key: string }).key
    const created = await fetch(`${base}/v1/corpora`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${session}` },
      body: JSON.stringify({ name: 'Bench base' }),
    })
    const corpus = (await created.json()) as { id: string }
    workspaceId = db.$client
      .query<{ workspace_id: string }, [string]>('SELECT workspace_id FROM corpora WHERE id = ?')
      .get(corpus.id)!.workspace_id
    const large = (await (
      await fetch(`${base}/v1/corpora`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${session}` },
        body: JSON.stringify({ name: 'Large base' }),
      })
    ).json()) as { id: string }
    fillBase(db, workspaceId, large.id, DOCUMENTS)
    const all = {
      bare: { name: 'bare Elysia hello world', url: `http://127.0.0.1:${hello.port}/`, token: '' },
      open: { name: 'GET same route, no auth', url: `${base}/v1/bench/open`, token: '' },
      openWithKey: { name: 'GET no auth, header sent', url: `${base}/v1/bench/open`, token: key },
      keyed: { name: 'GET same route, API key', url: `${base}/v1/bench/keyed`, token: key },
      session: { name: 'GET same route, session', url: `${base}/v1/bench/keyed`, token: session },
      twin: { name: 'GET base, no auth (twin)', url: `${base}/v1/bench/corpora/${corpus.id}`, token: '' },
      base: { name: 'GET /v1/corpora/{id}, API key', url: `${base}/v1/corpora/${corpus.id}`, token: key },
      large: {
        name: `GET base of ${DOCUMENTS} docs, key`,
        url: `${base}/v1/corpora/${large.id}`,
        token: key,
      },
      list: { name: 'GET /v1/corpora (list), key', url: `${base}/v1/corpora`, token: key },
      root: { name: 'GET /v1 (no auth)', url: `${base}/v1`, token: '' },
      status: { name: 'GET /v1/status (API key)', url: `${base}/v1/status`, token: key },
    }
    type Case = (typeof all)[keyof typeof all]
    const cases = Object.values(all).filter((c) => ONLY.length === 0 || ONLY.some((w) => c.name.includes(w)))
    await runLoad(all.open.url, '') // warm-up
    const totals = new Map<
      string,
      { rps: number[]; p50: number[]; p99: number[]; cpu: number[]; errors: number }
    >()
    for (let round = 0; round < ROUNDS; round++) {
      for (const c of cases) {
        const r = await runLoad(c.url, c.token)
        const t = totals.get(c.name) ?? { rps: [], p50: [], p99: [], cpu: [], errors: 0 }
        t.rps.push(r.requests / r.seconds)
        t.p50.push(r.p50)
        t.p99.push(r.p99)
        t.cpu.push(r.cpuMicrosPerRequest)
        t.errors += r.errors
        totals.set(c.name, t)
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0
    console.log(
      `auth cost: ${ROUNDS} rounds of ${SECONDS}s each, ${CONCURRENCY} concurrent keep-alive clients`,
    )
    console.log('case                             req/s    p50 ms   p99 ms   server CPU µs/req   errors')
    const summary = new Map<string, { rps: number; cpu: number }>()
    for (const [name, t] of totals) {
      const rps = median(t.rps)
      const cpu = median(t.cpu)
      summary.set(name, { rps, cpu })
      console.log(
        `${name.padEnd(31)} ${rps.toFixed(0).padStart(7)} ${median(t.p50).toFixed(2).padStart(9)} ${median(
          t.p99,
        )
          .toFixed(2)
          .padStart(8)} ${cpu.toFixed(1).padStart(19)} ${String(t.errors).padStart(8)}`,
      )
    }
    const compare = (open: Case, keyed: Case) => {
      const o = summary.get(open.name)
      const s = summary.get(keyed.name)
      if (!o || !s) return
      // Capacity: what a server bound by its own CPU loses, free of the load generator sharing the cores.
      console.log(
        `${keyed.name}: throughput ${(((o.rps - s.rps) / o.rps) * 100).toFixed(1)}% below ${open.name}; ` +
          `server CPU +${(s.cpu - o.cpu).toFixed(1)} µs/req, ${((1 - o.cpu / s.cpu) * 100).toFixed(1)}% of ` +
          'capacity (target: key auth costs < 15% of throughput)',
      )
    }
    for (const c of [all.openWithKey, all.keyed, all.session]) compare(all.open, c)
    compare(all.twin, all.base)
    const empty = summary.get(all.base.name)
    const full = summary.get(all.large.name)
    if (empty && full) {
      console.log(
        `${all.large.name}: ${full.rps.toFixed(0)} req/s beside ${empty.rps.toFixed(0)} on the empty base ` +
          `(${((full.rps / empty.rps) * 100).toFixed(0)}%); server CPU ${full.cpu.toFixed(1)} vs ${empty.cpu.toFixed(1)} µs/req ` +
          '(target: the same cost at any size)',
      )
    }
    // The pipeline's own cost: the keyed read of an empty base against the floor (issue 20).
    const bare = summary.get(all.bare.name)
    for (const c of [all.root, all.base]) {
      const s = summary.get(c.name)
      if (!bare || !s) continue
      console.log(
        `${c.name}: server CPU ${s.cpu.toFixed(1)} µs/req, ${(s.cpu / bare.cpu).toFixed(2)}x the bare Elysia ` +
          `hello world's ${bare.cpu.toFixed(1)}${c === all.base ? ' (target: at most 2x)' : ''}`,
      )
    }
  } finally {
    await hello.stop(true)
    await http.stop(true)
    db.$client.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * Puts `n` documents in a base straight into the database (a third ready, one in ten failed, every
 * fifth split into two sections): reading a base depends on its rows, not on how they arrived.
 */
function fillBase(db: ReturnType<typeof openDatabase>, workspaceId: string, corpusId: string, n: number) {
  const insert = db.$client.query(
    `INSERT INTO documents (id, workspace_id, corpus_id, parent_id, path, size, status, raw_key, created_at,
       updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  )
  const now = Date.now()
  db.$client.transaction(() => {
    for (let i = 0; i < n; i++) {
      const id = `doc_bench${i}`
      const status = i % 10 === 0 ? 'failed' : i % 3 === 0 ? 'ready' : 'pending'
      insert.run(id, workspaceId, corpusId, null, `docs/${i}.txt`, 2000, status, `bench/${i}`, now, now)
      if (i % 5 === 0) {
        for (const s of [0, 1]) {
          insert.run(`${id}s${s}`, workspaceId, corpusId, id, `docs/${i}.txt`, 900, status, null, now, now)
        }
      }
    }
  })()
}

if (process.argv[2] === 'client') {
  const [url, token, seconds, concurrency] = process.argv.slice(3) as [string, string, string, string]
  console.log(JSON.stringify(await client(url, token, Number(seconds), Number(concurrency))))
} else {
  await server()
}
