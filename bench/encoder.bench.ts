// `npm run bench encoder`: what the built-in sentence encoder costs the support check, side by side
// in one process: the same base (half of squad-dev's articles) asked the same questions (its own and
// the other half's) with the encoder off and on. Prints the latency of every question and of those
// the encoder was asked about, the share asked, the shares declined, the process's peak RSS while
// asking, and its RSS once the encoder's thread has stopped. Asserts nothing.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { quarters } from './lib/abstention'
import { createBenchEngine, onboardDocuments } from './lib/bench-engine'
import { sharedData } from './lib/shared-data'

const QUESTIONS = Number(process.env.BENCH_QUESTIONS ?? 600)
const DATA = sharedData('squad-dev', 'the SQuAD v1.1 dev half (24 articles, 5,665 questions)')
const files = readdirSync(join(DATA, 'articles')).filter((f) => f.endsWith('.txt'))
const [a1, , a2] = quarters(files) as [string[], string[], string[], string[]]
const own = new Set([...a1, ...a2])
const articles = files
  .filter((f) => own.has(f))
  .map((f) => ({
    file: f,
    title: f.replace(/\.txt$/, ''),
    text: readFileSync(join(DATA, 'articles', f), 'utf8'),
  }))
const all = readFileSync(join(DATA, 'questions.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as { document: string; question: string })
const step = Math.max(1, Math.floor(all.length / QUESTIONS))
const questions = all.filter((_, i) => i % step === 0).slice(0, QUESTIONS)
const isOwn = (q: { document: string }) => own.has(q.document.replace(/^articles\//, ''))

const mb = (bytes: number) => (bytes / 1048576).toFixed(0)
const pct = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? 0
const rows: string[] = []
for (const encoder of [false, true]) {
  const bench = await createBenchEngine({ encoder })
  const base = 'cor_bench'
  await onboardDocuments(bench.engine, base, articles)
  // What the encode job does after a run (issue 38): the passages' encodings, so a question costs
  // one encoder pass; timed apart from the questions.
  const e0 = performance.now()
  const encoded = await bench.engine.encodings.encodeSections(
    bench.engine.sectionsOf(base).map((s) => s.sectionId),
  )
  if (encoder) console.log(`encoded ${encoded} passages in ${((performance.now() - e0) / 1000).toFixed(1)} s`)
  Bun.gc(true)
  const before = process.memoryUsage().rss
  let peak = before
  const lat: number[] = []
  const askedLat: number[] = []
  const declined = { own: 0, foreign: 0 }
  const counts = { own: 0, foreign: 0 }
  for (const q of questions) {
    const asked = bench.engine.encodings.stats().asked
    const t0 = performance.now()
    const res = await bench.engine.ask(base, { question: q.question, k: 5, strategy: 'cart' })
    const ms = performance.now() - t0
    lat.push(ms)
    if (bench.engine.encodings.stats().asked > asked) askedLat.push(ms)
    const side = isOwn(q) ? 'own' : 'foreign'
    counts[side]++
    if (!res.answered) declined[side]++
    peak = Math.max(peak, process.memoryUsage().rss)
  }
  if (encoder) console.log('the check counted:', bench.engine.encodings.stats())
  bench.close()
  Bun.gc(true)
  const after = process.memoryUsage().rss
  lat.sort((a, b) => a - b)
  askedLat.sort((a, b) => a - b)
  rows.push(
    `| ${encoder ? 'on ' : 'off'} | ${questions.length} | ${((100 * askedLat.length) / questions.length).toFixed(1)}% | ` +
      `${pct(lat, 50).toFixed(2)} / ${pct(lat, 95).toFixed(2)} / ${pct(lat, 99).toFixed(1)} ms | ` +
      `${askedLat.length ? `${pct(askedLat, 50).toFixed(0)} / ${pct(askedLat, 95).toFixed(0)} / ${askedLat.at(-1)!.toFixed(0)} ms` : '-'} | ` +
      `${((100 * declined.foreign) / counts.foreign).toFixed(1)}% | ${((100 * declined.own) / counts.own).toFixed(1)}% | ` +
      `${mb(before)} → ${mb(peak)} MB | ${mb(after)} MB |`,
  )
}
console.log(
  `\nbase: ${articles.length} articles; ${questions.length} questions (own and foreign), cart, k = 5`,
)
console.log(
  '| encoder | questions | asked | latency p50 / p95 / p99 | asked: p50 / p95 / max | foreign declined | own declined | RSS before → peak | RSS after the thread stops |',
)
console.log('|---|---|---|---|---|---|---|---|---|')
for (const r of rows) console.log(r)
