// Shared by the benchmarks: the real app on a temp data dir served on a loopback port, an admin
// with keys, bases filled over HTTP, and a load generator that runs in its own process.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { migrations } from '../../migrations/index'
import { migrations as pgMigrations } from '../../migrations-pg/index'
import { type App, createApp } from '../../src/app'
import { systemClock } from '../../src/platform/clock/clock'
import { loadConfig } from '../../src/platform/config/config.load'
import { cryptoRandom } from '../../src/platform/crypto/random'
import { openDatabase } from '../../src/platform/db/db'
import { migrate } from '../../src/platform/db/migrate'
import { openPostgres } from '../../src/platform/db/open-postgres'
import { createLogger } from '../../src/platform/log/log'
import { createObjectStore } from '../../src/platform/storage/create-object-store'
import { sharedData } from './shared-data'

/** The 24 squad-dev articles as {path, text}. */
export function squadArticles(): { path: string; text: string }[] {
  const dir = sharedData('squad-dev/articles', 'the SQuAD v1.1 dev half (24 articles, 5,665 questions)')
  return readdirSync(dir)
    .filter((f) => f.endsWith('.txt'))
    .sort()
    .map((f) => ({ path: f, text: readFileSync(join(dir, f), 'utf8') }))
}

/** Questions of squad-dev. */
export function squadQuestions(): { question: string; answers: { text: string }[]; document: string }[] {
  return readFileSync(
    sharedData('squad-dev/questions.jsonl', 'the SQuAD v1.1 dev half (24 articles, 5,665 questions)'),
    'utf8',
  )
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
}

/**
 * The questions a latency bench asks: `n` of squad-dev spread over the file by a prime stride, from
 * the `skip`-th of that order (the stride is prime to the file's length, so two ranges of it share
 * no question).
 */
export function benchSample(n: number, skip = 0) {
  const questions = squadQuestions()
  return Array.from({ length: n }, (_, i) => questions[((i + skip) * 7919) % questions.length]!)
}

/** A text made distinct for copy `c` > 0: numbers shifted, a copy tag at each paragraph break. */
export function vary(text: string, c: number): string {
  return text.replace(/\b(\d+)\b/g, (n) => String(Number(n) + c)).replace(/\n\n/g, ` (copy ${c}).\n\n`)
}

/** Articles repeated `factor` times with varied text, as a bigger base. */
export function scaled(articles: { path: string; text: string }[], factor: number) {
  const out: { path: string; text: string }[] = []
  for (let c = 0; c < factor; c++) {
    for (const a of articles)
      out.push({ path: `copy${c}/${a.path}`, text: c === 0 ? a.text : vary(a.text, c) })
  }
  return out
}

/**
 * `n` one-paragraph documents: the articles' paragraphs (split on blank lines), repeated with varied
 * text once every paragraph has been used, as a base of many small files.
 */
export function smallFiles(articles: { path: string; text: string }[], n: number) {
  const paragraphs = articles.flatMap((a) =>
    a.text
      .split(/\n[ \t]*\n/)
      .map((p) => p.trim())
      .filter(Boolean)
      .map((text, i) => ({ name: a.path.replace(/\.txt$/, `-${i}.txt`), text })),
  )
  return Array.from({ length: n }, (_, i) => {
    const c = Math.floor(i / paragraphs.length)
    const p = paragraphs[i % paragraphs.length]!
    // One paragraph has no break inside, so its copies are tagged at the end.
    return { path: `copy${c}/${p.name}`, text: c === 0 ? p.text : `${vary(p.text, c)} (copy ${c}).` }
  })
}

export { containsGold } from './squad-metrics'

/** A server reached over HTTP, with an admin's session and a query key. */
export interface Server {
  url: string
  token: string
  queryKey: string
}

/** A running in-process server with an admin and keys. */
export interface Bench extends Server {
  app: App
  rss(): number
  stop(): Promise<void>
}

/**
 * Boots the real app (file-backed SQLite, local objects) and an admin with a query key; with
 * `postgresUrl`, the features' state is in that PostgreSQL database (migrated here), the engine's
 * index in the SQLite file as ever.
 */
export async function startBench(
  env: Record<string, string> = {},
  opts: { postgresUrl?: string } = {},
): Promise<Bench> {
  const dir = mkdtempSync(join(tmpdir(), 'engram-bench-'))
  const config = loadConfig({
    env: {
      ENGRAM_DATA_DIR: dir,
      ENGRAM_RATE_LIMITS: 'off',
      ENGRAM_PASSWORD_MEMORY_KIB: '1024',
      ENGRAM_LOG_LEVEL: 'error',
      ENGRAM_MAX_QUEUED_QUERIES: '10000',
      // Settings of the shell (ENGRAM_COMPILE_THREADS=0 npm run bench engine) override the defaults.
      ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('ENGRAM_'))),
      ...env,
    },
    readFile: () => null,
  })
  const db = openDatabase(join(dir, 'engram.db'))
  migrate(db, migrations)
  const pg = opts.postgresUrl ? await openPostgres(opts.postgresUrl, pgMigrations) : null
  const app = createApp({
    config,
    db,
    ...(pg ? { store: pg.store } : {}),
    clock: systemClock,
    random: cryptoRandom,
    log: createLogger('error'),
    secret: 'bench-secret-bench-secret-bench-secret-00',
    objects: createObjectStore(config, dir),
  })
  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: app.handle, maxRequestBodySize: 2 ** 31 })
  const url = `http://127.0.0.1:${server.port}`
  app.jobs.scheduler.start()
  return {
    app,
    ...(await registerAdmin(url)),
    rss: () => process.memoryUsage().rss,
    async stop() {
      await app.jobs.scheduler.stop()
      await server.stop(true)
      await pg?.close()
      db.$client.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** Registers the first workspace's admin on a fresh server and mints a query and ingest key. */
export async function registerAdmin(url: string): Promise<Server> {
  const reg = await post(url, '/v1/auth/register', null, {
    email: 'bench@example.com',
    password: 'correct horse battery',
    workspace_name: 'Bench',
    name: 'Bench',
  })
  const token = reg.access_token as string
  const key = await post(url, '/v1/api-keys', token, { name: 'bench', scopes: ['query', 'ingest'] })
  return { url, token, queryKey: key.key as string }
}

/** POSTs JSON and returns the parsed body; throws on a non-2xx status. */
export async function post(url: string, path: string, token: string | null, json: unknown) {
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(json),
  })
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`)
  return (await res.json()) as Record<string, unknown>
}

/** Creates a base, uploads the files (in batches), trains it, and waits; returns timings. */
export async function onboardBase(b: Server, name: string, files: { path: string; text: string }[]) {
  const base = await post(b.url, '/v1/corpora', b.token, { name })
  const id = base.id as string
  const t0 = performance.now()
  for (let i = 0; i < files.length; i += 50) {
    const form = new FormData()
    for (const f of files.slice(i, i + 50))
      form.append('files', new File([f.text], f.path, { type: 'text/plain' }))
    const res = await fetch(`${b.url}/v1/corpora/${id}/documents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${b.token}` },
      body: form,
    })
    if (!res.ok) throw new Error(`upload: ${res.status} ${await res.text()}`)
  }
  // Uploads are sync runs that stay running until their text extraction has settled.
  await waitFor(async () => {
    const runs = (await get(b, `/v1/corpora/${id}/sync-runs?limit=500`)) as { items: { status: string }[] }
    return runs.items.length > 0 && runs.items.every((r) => r.status !== 'running')
  })
  const t1 = performance.now()
  const run = (await post(b.url, `/v1/corpora/${id}/train`, b.token, {})) as { id: string }
  await waitFor(async () => {
    const job = (await get(b, `/v1/jobs/${run.id}`)) as { status: string }
    return job.status !== 'running' && job.status !== 'pending'
  })
  const t2 = performance.now()
  const chars = files.reduce((a, f) => a + Buffer.byteLength(f.text), 0)
  return { id, uploadSeconds: (t1 - t0) / 1000, trainSeconds: (t2 - t1) / 1000, mb: chars / 1e6 }
}

/** Re-onboards every document of a base (`force`), timed from `POST /train` to the run's end (s). */
export async function retrain(b: Server, id: string): Promise<number> {
  const t0 = performance.now()
  const run = (await post(b.url, `/v1/corpora/${id}/train?force=true`, b.token, {})) as { id: string }
  await waitFor(async () => {
    const job = (await get(b, `/v1/jobs/${run.id}`)) as { status: string }
    return job.status !== 'running' && job.status !== 'pending'
  })
  return (performance.now() - t0) / 1000
}

/** Waits until no embed job of the base is pending or running (an embeddings server is configured); seconds. */
export async function embedded(b: Server, id: string): Promise<number> {
  const t0 = performance.now()
  await waitFor(async () => {
    const jobs = (await get(b, `/v1/corpora/${id}/jobs?limit=500`)) as {
      items: { kind: string; status: string }[]
    }
    return jobs.items.every((j) => j.kind !== 'embed' || (j.status !== 'pending' && j.status !== 'running'))
  })
  return (performance.now() - t0) / 1000
}

/**
 * Encodes the base's passages for the support check as the engine's encode job does after a run
 * (the bench's app runs the scheduler but not the event dispatcher that queues the job); seconds.
 * Nothing to do when the built-in encoder is off.
 */
export async function encoded(b: Bench, id: string): Promise<number> {
  const t0 = performance.now()
  const engine = b.app.services.engine
  await engine.encodings.encodeSections(engine.sectionsOf(id).map((s) => s.sectionId))
  return (performance.now() - t0) / 1000
}

/**
 * Waits until the base's encode job (the support check's passages, queued a minute after a run) has
 * run and none is waiting: the base as it stays; seconds waited.
 */
export async function encodeDone(b: Server, id: string): Promise<number> {
  const t0 = performance.now()
  await waitFor(async () => {
    const jobs = (await get(b, `/v1/corpora/${id}/jobs?limit=500`)) as {
      items: { kind: string; status: string }[]
    }
    const encodes = jobs.items.filter((j) => j.kind === 'encode')
    return encodes.length > 0 && encodes.every((j) => j.status !== 'pending' && j.status !== 'running')
  })
  return (performance.now() - t0) / 1000
}

/**
 * Waits until the base's cartridges are all built (`cart_status` ready: the deferred build that
 * follows a run), so questions are timed on the base as it stays; seconds waited.
 */
export async function cartReady(b: Server, id: string): Promise<number> {
  const t0 = performance.now()
  await waitFor(async () => (await get(b, `/v1/corpora/${id}`)).cart_status === 'ready')
  return (performance.now() - t0) / 1000
}

async function get(b: Server, path: string) {
  const res = await fetch(`${b.url}${path}`, { headers: { authorization: `Bearer ${b.token}` } })
  return (await res.json()) as Record<string, unknown>
}

async function waitFor(done: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 100_000; i++) {
    if (await done()) return
    await Bun.sleep(20)
  }
  throw new Error('timed out')
}

/** Percentile of sorted numbers. */
export function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0
}

/** Load from a separate process: `requests` POSTs at `concurrency`, questions cycled. */
export async function load(
  url: string,
  key: string,
  path: string,
  bodies: unknown[],
  concurrency: number,
  requests: number,
): Promise<{ qps: number; p50: number; p95: number; p99: number; errors: number }> {
  const proc = Bun.spawn(['bun', 'run', join(import.meta.dir, 'load-client.ts')], {
    stdin: new Blob([JSON.stringify({ url: `${url}${path}`, key, bodies, concurrency, requests })]),
    stdout: 'pipe',
    stderr: 'inherit',
  })
  const out = await new Response(proc.stdout).text()
  await proc.exited
  return JSON.parse(out)
}
