// `npm run bench scale`: does the scale-test route tell the truth? The 24 squad-dev articles are
// onboarded into one base; then, at each concurrency level of the ramp (24, 12, 6, 3, 1), each
// strategy is loaded directly over HTTP (/chat/stream, from a separate process) and by the
// scale-test route (POST /scale-test/stream, whose load worker calls the same route), with
// the same questions and the same number of requests per level. The direct load runs before and
// after the scale test and their mean is the reference, so drift of a shared machine shows. Prints
// both side by side and how far apart they are; asserts nothing.
import { type Bench, load, onboardBase, squadArticles, squadQuestions, startBench } from './lib/harness'

const MAX = Number(process.env.BENCH_MAX_CONCURRENCY ?? 24)
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 300)
const QUERIES = 16
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2)

const questions = squadQuestions()
const queries = Array.from({ length: QUERIES }, (_, i) => questions[(i * 7919) % questions.length]!.question)
const levels: number[] = []
for (let l = MAX; l > 1; l = Math.floor(l / 2)) levels.push(l)
levels.push(1)

type Strategy = 'cart' | 'rag'
type Figures = { qps: number; p50: number; p95: number }

/** Direct HTTP load of one strategy at one level, from a separate process. */
async function direct(b: Bench, id: string, strategy: Strategy, level: number): Promise<Figures> {
  const bodies = queries.map((question) => ({ question, strategy }))
  const r = await load(b.url, b.queryKey, `/v1/corpora/${id}/chat/stream`, bodies, level, REQUESTS)
  if (r.errors > 0) console.log(`  (direct ${strategy}@${level}: ${r.errors} errors)`)
  return { qps: r.qps, p50: r.p50, p95: r.p95 }
}

/** Every level of the ramp for both strategies, loaded directly. */
async function directRamp(b: Bench, id: string) {
  const out = new Map<string, Figures>()
  for (const level of levels) {
    for (const s of ['cart', 'rag'] as const) out.set(`${s}@${level}`, await direct(b, id, s, level))
  }
  return out
}

/** Runs the scale-test route over HTTP and returns its level records. */
async function scaleRoute(b: Bench, id: string) {
  const res = await fetch(`${b.url}/v1/corpora/${id}/scale-test/stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${b.queryKey}` },
    body: JSON.stringify({ queries, max_concurrency: MAX }),
  })
  const text = await res.text()
  const events = text
    .split('\n\n')
    .map((block) => ({
      event: /^event: (.*)$/m.exec(block)?.[1],
      data: /^data: (.*)$/m.exec(block)?.[1],
    }))
    .filter((e) => e.event && e.data)
    .map((e) => ({ event: e.event!, data: JSON.parse(e.data!) }))
  const done = events.find((e) => e.event === 'done')?.data
  const transport = events.find((e) => e.event === 'start')?.data.transport as string
  const out = new Map<string, Figures & { ok: number; reqs: number; ttft: number; cpu: number }>()
  for (const e of events.filter((x) => x.event === 'level')) {
    for (const s of ['cart', 'rag'] as const) {
      const r = e.data[s]
      out.set(`${s}@${e.data.level}`, {
        qps: r.qps,
        p50: r.lat,
        p95: r.lat_p95,
        ok: r.ok,
        reqs: r.reqs,
        ttft: r.ttft,
        cpu: r.cpu_ms,
      })
    }
  }
  return { records: out, done, transport }
}

const pctDiff = (a: number, ref: number) => (ref > 0 ? ((a - ref) / ref) * 100 : Number.NaN)
const f1 = (x: number) => x.toFixed(1)
const sign = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(0)}%`

const b = await startBench({
  ENGRAM_SCALE_TEST_MAX_REQUESTS_PER_LEVEL: String(REQUESTS),
  ENGRAM_SCALE_TEST_MAX_SECONDS: '600',
  // The bench runs the test BENCH_ROUNDS times in one workspace: the hourly allowance is not measured.
  ENGRAM_SCALE_TEST_MAX_PER_HOUR: '1000',
})
// As `engram serve` does: the scale test then loads the server over HTTP from a worker thread.
await b.app.start({ url: b.url })
const base = await onboardBase(b, 'squad-dev', squadArticles())
console.log(
  `squad-dev: ${base.mb.toFixed(2)} MB onboarded in ${base.trainSeconds.toFixed(1)} s; ` +
    `${queries.length} questions, ${REQUESTS} requests per strategy and level, levels ${levels.join(', ')}`,
)
// Warm-up (cartridges loaded, code paths compiled) before anything is measured.
await direct(b, base.id, 'cart', 4)
await direct(b, base.id, 'rag', 4)

// Direct ramps and route runs alternate (direct, route, direct, route, direct): each side is averaged
// over its runs, so what else the shared machine did weighs on both alike.
const directs: Map<string, Figures>[] = [await directRamp(b, base.id)]
const routes: Awaited<ReturnType<typeof scaleRoute>>[] = []
for (let round = 0; round < ROUNDS; round++) {
  const t0 = performance.now()
  routes.push(await scaleRoute(b, base.id))
  console.log(
    `scale-test route run ${round + 1} (${routes.at(-1)!.transport}): ` +
      `${f1((performance.now() - t0) / 1000)} s, ${JSON.stringify(routes.at(-1)!.done)}`,
  )
  directs.push(await directRamp(b, base.id))
}

const mean = (xs: number[]) => xs.reduce((a, x) => a + x, 0) / xs.length
console.log(
  '\nstrategy level | direct qps (runs) | route qps (runs) | qps gap | direct p50/p95 ms | route p50/p95 ms | route ttft ms | route cpu ms/query',
)
let within = 0
let total = 0
let worst = 0
for (const level of levels) {
  for (const s of ['cart', 'rag'] as const) {
    const key = `${s}@${level}`
    const d = directs.map((m) => m.get(key)!)
    const r = routes.map((x) => x.records.get(key)).filter((x) => x !== undefined)
    if (r.length === 0) {
      console.log(`${s.padEnd(4)} ${String(level).padStart(5)} | no record from the route`)
      continue
    }
    const ref = {
      qps: mean(d.map((x) => x.qps)),
      p50: mean(d.map((x) => x.p50)),
      p95: mean(d.map((x) => x.p95)),
    }
    const got = {
      qps: mean(r.map((x) => x.qps)),
      p50: mean(r.map((x) => x.p50)),
      p95: mean(r.map((x) => x.p95)),
    }
    const diff = pctDiff(got.qps, ref.qps)
    total++
    if (Math.abs(diff) <= 25) within++
    worst = Math.max(worst, Math.abs(diff))
    console.log(
      `${s.padEnd(4)} ${String(level).padStart(5)} | ${f1(ref.qps).padStart(6)} (${d.map((x) => f1(x.qps)).join('/')}) | ` +
        `${f1(got.qps).padStart(6)} (${r.map((x) => f1(x.qps)).join('/')}) | ${sign(diff).padStart(5)} | ` +
        `${f1(ref.p50)}/${f1(ref.p95)} | ${f1(got.p50)}/${f1(got.p95)} | ${f1(mean(r.map((x) => x.ttft)))} | ` +
        `${r.every((x) => typeof x.cpu === 'number') ? mean(r.map((x) => x.cpu)).toFixed(2) : '-'}`,
    )
  }
}
console.log(
  `\nqueries per second within 25% of the direct HTTP load: ${within} of ${total} level records; largest gap ${worst.toFixed(0)}%`,
)
// What the economics route makes of the same base, on the default rate card.
const eco = (await (
  await fetch(`${b.url}/v1/corpora/${base.id}/economics`, {
    headers: { authorization: `Bearer ${b.queryKey}` },
  })
).json()) as Record<string, unknown>
console.log(
  `\neconomics (default rate card, 100,000 queries a month): ${JSON.stringify({ ...eco, rate_card: undefined })}`,
)
await b.stop()
