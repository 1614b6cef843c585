// The whole app on each engine, side by side in one run (issue 39): the same 24 squad-dev articles
// onboarded over HTTP (first upload byte to the end of the run, MB/s), then the same questions asked
// one at a time (p50, p99) and at 4 clients from a separate process (questions a second), by rag and
// cart, with the features' state in SQLite (the data dir's file) and then in PostgreSQL (the tests'
// private cluster: loopback, fsync off), the engine's index in SQLite both times. Engines alternate
// over BENCH_ROUNDS rounds (default 2) so a noisy machine weighs on both. The built-in encoder is off
// (ENGRAM_EMBED_ENCODER=false) so answers and timings do not depend on its bounded wait.
// BENCH_QUESTIONS (default 200) a strategy. Prints figures only.
import { testPostgres } from '../tests/helpers/postgres'
import { benchSample, cartReady, load, onboardBase, pct, squadArticles, startBench } from './lib/harness'

const N = Number(process.env.BENCH_QUESTIONS ?? 200)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2)
const cluster = await testPostgres()
if (!cluster.available) {
  console.log(`engines: PostgreSQL not available (${cluster.reason}); nothing to compare`)
  process.exit(0)
}
const pg = cluster
const articles = squadArticles()
const questions = benchSample(N).map((q) => q.question)

interface Figures {
  mbs: number
  p50: Record<string, number>
  p99: Record<string, number>
  qps: Record<string, number>
}

async function measure(engine: 'sqlite' | 'postgres'): Promise<Figures> {
  const b = await startBench(
    { ENGRAM_EMBED_ENCODER: 'false' },
    engine === 'postgres' ? { postgresUrl: await pg.freshDatabase() } : {},
  )
  try {
    const r = await onboardBase(b, 'squad', articles)
    const mbs = r.mb / (r.uploadSeconds + r.trainSeconds)
    await cartReady(b, r.id)
    const out: Figures = { mbs, p50: {}, p99: {}, qps: {} }
    const path = `/v1/corpora/${r.id}/chat`
    for (const strategy of ['rag', 'cart']) {
      const took: number[] = []
      for (const question of questions) {
        const t0 = performance.now()
        const res = await fetch(`${b.url}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${b.queryKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ question, strategy }),
        })
        await res.arrayBuffer()
        if (!res.ok) throw new Error(`${engine} ${strategy}: ${res.status}`)
        took.push(performance.now() - t0)
      }
      took.sort((a, b) => a - b)
      out.p50[strategy] = pct(took, 0.5)
      out.p99[strategy] = pct(took, 0.99)
      const bodies = questions.map((question) => ({ question, strategy }))
      out.qps[strategy] = (await load(b.url, b.queryKey, path, bodies, 4, 2 * N)).qps
    }
    return out
  } finally {
    await b.stop()
  }
}

const runs: Record<string, Figures[]> = { sqlite: [], postgres: [] }
for (let round = 0; round < ROUNDS; round++) {
  for (const engine of round % 2 === 0
    ? (['sqlite', 'postgres'] as const)
    : (['postgres', 'sqlite'] as const)) {
    runs[engine]!.push(await measure(engine))
  }
}
const range = (xs: number[], digits = 1) => {
  const lo = Math.min(...xs)
  const hi = Math.max(...xs)
  return lo === hi ? lo.toFixed(digits) : `${lo.toFixed(digits)}–${hi.toFixed(digits)}`
}
console.log(
  `\n${articles.length} squad-dev articles, ${N} questions a strategy, ${ROUNDS} rounds (ranges over rounds)`,
)
console.log('| | SQLite | PostgreSQL |\n| --- | --- | --- |')
console.log(
  `| onboarding, first upload byte to answers (MB/s) | ${range(
    runs.sqlite!.map((f) => f.mbs),
    2,
  )} | ${range(
    runs.postgres!.map((f) => f.mbs),
    2,
  )} |`,
)
for (const s of ['rag', 'cart']) {
  const row = (k: 'p50' | 'p99' | 'qps', label: string, digits: number) =>
    console.log(
      `| ${s} ${label} | ${range(
        runs.sqlite!.map((f) => f[k][s]!),
        digits,
      )} | ${range(
        runs.postgres!.map((f) => f[k][s]!),
        digits,
      )} |`,
    )
  row('p50', 'p50, one client (ms)', 1)
  row('p99', 'p99, one client (ms)', 1)
  row('qps', 'questions a second, 4 clients', 0)
}
