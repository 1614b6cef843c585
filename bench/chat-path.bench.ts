// A chat question's cost in process, side by side across trees: each tree's app (its own
// bench/lib/harness.ts: file-backed SQLite, the scheduler running) onboards the 24 squad-dev
// articles and waits for the deferred build, then rounds alternate between the trees, each asking
// BENCH_QUESTIONS (default 400) questions of each strategy through `app.handle` (no socket). It prints
// the main thread's CPU a question (its own time from /proc/self/task/<pid>/schedstat, so the
// compile and encoder threads and other processes are not counted: on a shared machine it moves far
// less than wall time) and wall p50/p90/p99, and how many answers (answer, short answer, sources
// and their places) differ between the first tree and each other. With the built-in encoder on, an
// answer can depend on the load (its wait is bounded); ENGRAM_EMBED_ENCODER=false makes them
// deterministic. `bun run bench/chat-path.bench.ts /path/to/other/checkout` compares two trees;
// BENCH_ROUNDS (default 2); BENCH_STRATEGIES (default rag,cart; cart alone for a profile with
// `bun --cpu-prof`); BENCH_SHOW_DIFF=1 prints the answers that differ. Prints; asserts nothing.
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'

const roots = [resolve(import.meta.dir, '..'), ...process.argv.slice(2).map((r) => resolve(r))]
const N = Number(process.env.BENCH_QUESTIONS ?? 400)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2)
const STRATEGIES = (process.env.BENCH_STRATEGIES ?? 'rag,cart').split(',')

interface Tree {
  root: string
  // biome-ignore lint/suspicious/noExplicitAny: each tree's own harness module, loaded by path
  h: any
  // biome-ignore lint/suspicious/noExplicitAny: each tree's own bench server
  b: any
  base: string
}

/** The main thread's CPU time so far, in ns (Linux). */
function mainThreadNs(): number {
  return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0])
}

async function ask(t: Tree, question: string, strategy: string) {
  const res: Response = await t.b.app.handle(
    new Request(`http://bench.test/v1/corpora/${t.base}/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${t.b.queryKey}` },
      body: JSON.stringify({ question, strategy, k: 5 }),
    }),
  )
  if (!res.ok) throw new Error(`chat: ${res.status} ${await res.text()}`)
  return res.json()
}

const trees: Tree[] = []
for (const root of roots) {
  const h = await import(`${root}/bench/lib/harness.ts`)
  const b = await h.startBench()
  const base = await h.onboardBase(b, 'chat-path', h.squadArticles())
  await h.cartReady(b, base.id)
  trees.push({ root, h, b, base: base.id })
}
const { benchSample, pct } = trees[0]!.h
const sample: { question: string }[] = benchSample(N)

// An untimed pass that warms caches, and the answers each tree gives.
const answers = trees.map(() => new Map<string, string>())
for (const [i, t] of trees.entries()) {
  for (const q of sample) {
    for (const s of STRATEGIES) {
      const r = await ask(t, q.question, s)
      const sources = r.sources.map((x: { filename: string; id: string; score: number; start: number }) => [
        x.filename,
        x.id.slice(x.id.lastIndexOf(':') + 1),
        x.score,
        x.start,
      ])
      answers[i]!.set(`${s} ${q.question}`, JSON.stringify([r.answer, r.short_answer, r.answered, sources]))
    }
  }
}

const figures = new Map<string, { cpu: number[]; wall: number[] }>()
for (let round = 0; round < ROUNDS; round++) {
  for (const t of round % 2 ? trees.toReversed() : trees) {
    for (const s of STRATEGIES) {
      const key = `${t.root.slice(-24).padEnd(24)} ${s}`
      const f = figures.get(key) ?? { cpu: [], wall: [] }
      figures.set(key, f)
      const cpu0 = mainThreadNs()
      for (const q of sample) {
        const t0 = performance.now()
        await ask(t, q.question, s)
        f.wall.push(performance.now() - t0)
      }
      f.cpu.push((mainThreadNs() - cpu0) / 1000 / sample.length)
    }
  }
}

console.log(`chat in process: ${sample.length} questions a strategy a round, ${ROUNDS} rounds, k = 5`)
for (const [i, a] of answers.entries()) {
  if (i === 0) continue
  let differ = 0
  for (const [k, v] of answers[0]!) {
    if (a.get(k) === v) continue
    differ++
    // BENCH_SHOW_DIFF=1 prints each differing answer, this tree's first.
    if (process.env.BENCH_SHOW_DIFF) console.log(`differs: ${k}\n  ${v}\n  ${a.get(k)}`)
  }
  console.log(`answers differing from the first tree: ${differ} of ${answers[0]!.size} (${trees[i]!.root})`)
}
for (const [key, f] of figures) {
  const wall = f.wall.toSorted((x, y) => x - y)
  const cpu = f.cpu.map((x) => x.toFixed(0)).join(' / ')
  console.log(
    `${key}  main-thread CPU µs a question ${cpu}  wall p50 ${pct(wall, 0.5).toFixed(3)} p90 ${pct(wall, 0.9).toFixed(3)} p99 ${pct(wall, 0.99).toFixed(3)} ms`,
  )
}
for (const t of trees) await t.b.stop()
