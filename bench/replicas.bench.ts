// Replicas (issue 40): questions a second and p50/p99 at 1, 2 and 3 `engram serve` processes of the
// compiled executable on loopback sharing one PostgreSQL database (the tests' private cluster: fsync
// off) and one S3 bucket (s3rver), against the single binary on SQLite (its data dir, local objects).
// The 24 squad-dev articles are onboarded through replica A alone; then, for each row, a bounded load:
// BENCH_QUESTIONS (default 400) questions a strategy from BENCH_CLIENTS (default 4) clients in a
// process of their own, each client round-robin over the row's replicas. Beside each row, the CPU
// seconds used during the load by each replica, by PostgreSQL (the postmaster and its backends) and by
// the load generator (/proc/<pid>/stat, utime + stime), so the first bottleneck is read off them; and
// how many questions each replica answered (until the published index exists, a replica that did not
// onboard the base finds no passages and declines at once: its figures are the request path's, auth
// read and all, not a question's). Prints figures only; asserts nothing.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { binaryPath, removeBuiltBinary, signUpOn } from '../tests/helpers/binary'
import { testPostgres } from '../tests/helpers/postgres'
import { cpuSeconds, postgresCpuSeconds, postmasterOf } from '../tests/helpers/process-cpu'
import { startReplicas, until } from '../tests/helpers/replicas'
import { benchSample, pct } from './lib/harness'
import { sharedData } from './lib/shared-data'

const N = Number(process.env.BENCH_QUESTIONS ?? 400)
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 4)
const STRATEGIES = ['rag', 'cart'] as const
/** How long the idle replicas' CPU is read for, after the rows. */
const IDLE_MS = 5_000
/** Settings of every server: what the other benches set (no rate limits, a cheap password hash, quiet logs). */
const ENV = {
  ENGRAM_RATE_LIMITS: 'off',
  ENGRAM_PASSWORD_MEMORY_KIB: '1024',
  ENGRAM_LOG_LEVEL: 'error',
  ENGRAM_MAX_QUEUED_QUERIES: '10000',
  ENGRAM_EMBED_ENCODER: 'false',
}

interface ClientInput {
  urls: string[]
  key: string
  path: string
  bodies: unknown[]
  clients: number
  requests: number
}
interface ClientOutput {
  seconds: number
  latencies: number[]
  answered: number[]
  errors: number
  cpu: number
}

/** The load generator (this file run with `client`): reads ClientInput on stdin, prints ClientOutput. */
async function client(): Promise<void> {
  const input = JSON.parse(await new Response(Bun.stdin.stream()).text()) as ClientInput
  const out: ClientOutput = {
    seconds: 0,
    latencies: [],
    answered: input.urls.map(() => 0),
    errors: 0,
    cpu: 0,
  }
  let next = 0
  const t0 = performance.now()
  const worker = async (k: number) => {
    for (let j = 0; ; j++) {
      const i = next++
      if (i >= input.requests) return
      const r = (k + j) % input.urls.length
      const s = performance.now()
      const res = await fetch(`${input.urls[r]}${input.path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${input.key}` },
        body: JSON.stringify(input.bodies[i % input.bodies.length]),
      })
      const body = (await res.json()) as { answered?: boolean }
      out.latencies.push(performance.now() - s)
      if (res.status !== 200) out.errors++
      else if (body.answered) out.answered[r]!++
    }
  }
  await Promise.all(Array.from({ length: input.clients }, (_, k) => worker(k)))
  out.seconds = (performance.now() - t0) / 1000
  const u = process.cpuUsage()
  out.cpu = (u.user + u.system) / 1e6
  console.log(JSON.stringify(out))
}

/** Runs the load from a process of its own; its figures, and the CPU seconds `pids` and PostgreSQL used meanwhile. */
async function load(input: ClientInput, pids: number[], postmaster: number | null) {
  const before = pids.map((p) => cpuSeconds(p))
  const pgBefore = postmaster ? postgresCpuSeconds(postmaster) : 0
  const proc = Bun.spawn([process.execPath, 'run', import.meta.path, 'client'], {
    stdin: new Blob([JSON.stringify(input)]),
    stdout: 'pipe',
    stderr: 'inherit',
  })
  const out = JSON.parse(await new Response(proc.stdout).text()) as ClientOutput
  await proc.exited
  const cpu = pids.map((p, i) => cpuSeconds(p) - before[i]!)
  const pg = postmaster ? postgresCpuSeconds(postmaster) - pgBefore : 0
  out.latencies.sort((a, b) => a - b)
  return { ...out, replicaCpu: cpu, pgCpu: pg }
}

/** The admin's session and a query key on a server, and its base of the articles, onboarded and built. */
async function onboard(url: string, articles: { path: string; text: string }[]) {
  const auth = await signUpOn(url, 'bench@example.com', 'Bench')
  const post = async (path: string, body?: unknown, form?: FormData) => {
    const res = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { ...auth, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: form ?? (body ? JSON.stringify(body) : undefined),
    })
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`)
    return (await res.json()) as Record<string, unknown>
  }
  const get = async (path: string) =>
    (await (await fetch(`${url}${path}`, { headers: auth })).json()) as Record<string, unknown>
  const key = (await post('/v1/api-keys', { name: 'bench', scopes: ['query'] })).key as string
  const id = (await post('/v1/corpora', { name: 'squad' })).id as string
  const form = new FormData()
  for (const a of articles) form.append('files', new File([a.text], a.path, { type: 'text/plain' }))
  await post(`/v1/corpora/${id}/documents`, undefined, form)
  await until(async () => {
    const runs = (await get(`/v1/corpora/${id}/sync-runs`)) as { items: { status: string }[] }
    return runs.items.length > 0 && runs.items.every((r) => r.status !== 'running')
  }, 'extraction')
  const run = (await post(`/v1/corpora/${id}/train`)).id as string
  await until(async () => (await get(`/v1/jobs/${run}`)).status === 'succeeded', 'the run', 300_000)
  await until(async () => (await get(`/v1/corpora/${id}`)).cart_status === 'ready', 'cartridges', 300_000)
  return { key, id }
}

interface Row {
  name: string
  strategy: string
  qps: number
  p50: number
  p99: number
  errors: number
  answered: number[]
  replicaCpu: number[]
  pgCpu: number
  clientCpu: number
}

/** Warms every replica on the questions (untimed), then loads the row, each strategy in turn. */
async function measure(
  name: string,
  urls: string[],
  pids: number[],
  key: string,
  id: string,
  postmaster: number | null,
) {
  const questions = benchSample(N).map((q) => q.question)
  const rows: Row[] = []
  for (const strategy of STRATEGIES) {
    const bodies = questions.map((question) => ({ question, strategy }))
    const input = { urls, key, path: `/v1/corpora/${id}/chat`, bodies, clients: CLIENTS }
    await load({ ...input, requests: N * urls.length }, pids, postmaster)
    const r = await load({ ...input, requests: N }, pids, postmaster)
    rows.push({
      name,
      strategy,
      qps: r.latencies.length / r.seconds,
      p50: pct(r.latencies, 0.5),
      p99: pct(r.latencies, 0.99),
      errors: r.errors,
      answered: r.answered,
      replicaCpu: r.replicaCpu,
      pgCpu: r.pgCpu,
      clientCpu: r.cpu,
    })
    console.log(format(rows.at(-1)!))
  }
  return rows
}

function format(r: Row): string {
  const cpu = r.replicaCpu.map((c) => c.toFixed(2)).join(' / ')
  const perQ = (s: number) => ((s * 1000) / N).toFixed(2)
  const replicas = r.replicaCpu.reduce((a, b) => a + b, 0)
  return (
    `${r.name.padEnd(24)} ${r.strategy.padEnd(4)} ${r.qps.toFixed(0).padStart(5)} q/s  p50 ${r.p50.toFixed(1)} ms  ` +
    `p99 ${r.p99.toFixed(1)} ms  errors ${r.errors}  answered ${r.answered.join(' / ')}  ` +
    `CPU s: replicas ${cpu}, PostgreSQL ${r.pgCpu.toFixed(2)}, load ${r.clientCpu.toFixed(2)}  ` +
    `CPU ms a question: replicas ${perQ(replicas)}, PostgreSQL ${perQ(r.pgCpu)}  ` +
    `load average ${loadavg()[0]!.toFixed(1)}`
  )
}

async function main() {
  const dir = sharedData('squad-dev/articles', 'the SQuAD v1.1 dev half (24 articles, 5,665 questions)')
  const articles = readdirSync(dir)
    .filter((f) => f.endsWith('.txt'))
    .sort()
    .map((f) => ({ path: f, text: readFileSync(join(dir, f), 'utf8') }))
  binaryPath()
  console.log(`${N} questions a strategy a row, ${CLIENTS} clients each round-robin over the row's replicas`)
  // The single binary on SQLite (its data dir's file, local objects).
  const cwd = mkdtempSync(join(tmpdir(), 'engram-bench-replicas-'))
  const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const url = `http://127.0.0.1:${probe.port}`
  const env = { PATH: process.env.PATH ?? '', ENGRAM_HOST: '127.0.0.1', ENGRAM_PORT: String(probe.port) }
  probe.stop(true)
  const single = Bun.spawn([binaryPath(), 'serve'], {
    cwd,
    env: { ...env, ...ENV, ENGRAM_DATA_DIR: join(cwd, 'data') },
    // Its first-start banner (stderr) is not this bench's output.
    stdout: 'ignore',
    stderr: 'ignore',
  })
  try {
    await until(async () => (await fetch(`${url}/v1`).catch(() => null))?.status === 200, url, 60_000)
    const s = await onboard(url, articles)
    await measure('single binary, SQLite', [url], [single.pid], s.key, s.id, null)
  } finally {
    single.kill('SIGTERM')
    await single.exited
    rmSync(cwd, { recursive: true, force: true })
  }
  const pg = await testPostgres()
  if (!pg.available) {
    console.log(`replicas: PostgreSQL not available (${pg.reason}); only the SQLite row`)
    return
  }
  const set = await startReplicas(pg, { env: ENV, startLater: [1, 2] })
  try {
    const postmaster = postmasterOf(set.databaseUrl)
    if (!postmaster) console.log("PostgreSQL's postmaster not found: its CPU is not counted")
    const s = await onboard(set.url(0), articles)
    for (let n = 1; n <= 3; n++) {
      if (n > 1) await set.start(n - 1)
      const ids = [...Array(n).keys()]
      await measure(
        `${n} replica(s), PostgreSQL`,
        ids.map(set.url),
        ids.map(set.pid),
        s.key,
        s.id,
        postmaster,
      )
    }
    // What the three cost with no questions (their schedulers' polls, pings, the registry), over IDLE_MS.
    const pids = [0, 1, 2].map(set.pid)
    const before = pids.map((p) => cpuSeconds(p))
    const pgBefore = postmaster ? postgresCpuSeconds(postmaster) : 0
    await Bun.sleep(IDLE_MS)
    const idle = pids.map((p, i) => (cpuSeconds(p) - before[i]!).toFixed(2)).join(' / ')
    const pgIdle = postmaster ? (postgresCpuSeconds(postmaster) - pgBefore).toFixed(2) : '?'
    console.log(`idle ${IDLE_MS / 1000} s, 3 replicas: CPU s: replicas ${idle}, PostgreSQL ${pgIdle}`)
  } finally {
    await set.stop()
    removeBuiltBinary()
  }
}

if (process.argv[2] === 'client') await client()
else await main()
