// `npm run bench:quality`: answer quality of both strategies on the squad-dev half (24 articles, 5,665
// questions), in process. Onboards the articles as documents of one base, asks every question with
// k = 5, prints the table (metrics as ../shared/data/README.md defines them). Prints; asserts nothing.
// Short EM / short F1: SQuAD exact match and token F1 of the short answer (a null one counts as
// empty), on all questions and on the odd-numbered articles, held out from fitting the span picker.
// Options: --strategy cart|rag (only one), --limit N (first N questions), --sample N (every Nth question),
// --fails FILE (answers without the gold), --misses FILE (recall@5 misses, with the gold's rank at k = 20),
// --embed (re-rank by meaning, with a local embeddings server: bench/lib/use-embeddings-server.ts),
// --embed-weight W (the similarity's weight, ENGRAM_EMBED_WEIGHT's or ENGRAM_EMBED_BUILTIN_WEIGHT's
// default otherwise). Without --embed, the engine is configured as the product's default is: with the
// built-in static word vectors, unless ENGRAM_EMBED_BUILTIN=false (lexical only); --builtin is
// accepted and changes nothing. Then abstention (bench/lib/abstention.ts): two bases of half the
// articles each, asked their own questions and the other half's; --no-abstain skips it,
// --abstain-signals FILE writes the tuning split's records, one JSON a line (question, search
// evidence, support signals, top sources), to refit the support model (scripts/refit-support.ts).
// Last, the retrieval sets found on disk (bench/retrieval.ts: nDCG@10 of both strategies beside FTS5
// bm25()); --no-retrieval skips them, --retrieval-only skips SQuAD, --retrieval-limit N and
// --retrieval-dump FILE are bench/retrieval.ts's options. --short-dump FILE writes the tuning split's
// short-answer records, one JSON a line (question as searched, the answer's sentences, golds), to refit
// the span picker (scripts/fit-short.ts).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import type { AskResult, Engine } from '../src/features/engine/engine.service'
import { measureAbstention } from './lib/abstention'
import { type BenchEngine, createBenchEngine, onboardDocuments, sections } from './lib/bench-engine'
import { sharedData } from './lib/shared-data'
import { containsGold, exactMatch, tokenF1 } from './lib/squad-metrics'
import { runRetrieval } from './retrieval'

const squadData = () => sharedData('squad-dev', 'the SQuAD v1.1 dev half (24 articles, 5,665 questions)')
const { values: args } = parseArgs({
  args: process.argv.slice(2),
  options: {
    strategy: { type: 'string' },
    limit: { type: 'string' },
    fails: { type: 'string' },
    misses: { type: 'string' },
    sample: { type: 'string' },
    embed: { type: 'boolean' },
    builtin: { type: 'boolean' },
    'embed-weight': { type: 'string' },
    'no-abstain': { type: 'boolean' },
    'abstain-signals': { type: 'string' },
    'no-retrieval': { type: 'boolean' },
    'retrieval-only': { type: 'boolean' },
    'retrieval-limit': { type: 'string' },
    'retrieval-dump': { type: 'string' },
    'short-dump': { type: 'string' },
  },
})

interface Question {
  id: string
  document: string
  question: string
  answers: { text: string }[]
}

const pct = (a: number[], q: number) => a[Math.min(a.length - 1, Math.floor(a.length * q))]!

/** The SQuAD part: onboarding, the strategies' table, then abstention. */
async function squad(engine: Engine) {
  const DATA = squadData()
  const base = 'cor_squad'
  const files = readdirSync(join(DATA, 'articles')).sort()
  const articles = files.map((file) => ({
    file,
    text: readFileSync(join(DATA, 'articles', file), 'utf8'),
    title: file
      .replace(/\.txt$/, '')
      .replace(/_+/g, ' ')
      .trim(),
  }))
  const textBytes = articles.reduce((n, a) => n + Buffer.byteLength(a.text), 0)
  /** Onboards every article into `baseId` (scratch passes marked apart from the real base's text). */
  const onboard = (baseId: string) =>
    onboardDocuments(engine, baseId, articles, baseId === base ? undefined : `${baseId}.`)
  // Three passes (two into scratch bases, removed after; the last is the base asked below); the
  // median is reported, so a JIT warm-up or a neighbour's burst on the shared cores does not decide it.
  const passes = [await onboard('cor_scratch1'), await onboard('cor_scratch2'), await onboard(base)]
  const { cartBytes, sections: nSections } = passes[2]!
  await engine.removeBase('cor_scratch1')
  await engine.removeBase('cor_scratch2')
  const walls = passes.map((p) => p.wall).sort((a, b) => a - b)
  const onboardS = walls[1]!
  const cpuS = passes.map((p) => p.cpu).sort((a, b) => a - b)[1]!
  const warmBytes = engine.cache.bytes
  const mb = textBytes / 1e6
  console.log(
    `onboarded ${mb.toFixed(2)} MB in ${nSections} sections: ${(mb / onboardS).toFixed(2)} MB/s wall (median of ` +
      `${walls.map((w) => (mb / w).toFixed(2)).join(', ')}), ` +
      `${(mb / cpuS).toFixed(2)} MB/s per CPU-second; ` +
      `cartridges ${(cartBytes / 1e6 / mb).toFixed(2)} MB stored and ${(warmBytes / 1e6 / mb).toFixed(2)} MB warm per MB of text`,
  )
  if (engine.embedsAfterOnboarding) {
    // What the embed job does after a run (onboarding itself never waits for the embeddings server;
    // the built-in vectors are made as passages are indexed, inside the timing above).
    const t0 = performance.now()
    const vectors = await engine.embedSections(engine.sectionsOf(base).map((s) => s.sectionId))
    const s = (performance.now() - t0) / 1000
    console.log(`embedded ${vectors} passages in ${s.toFixed(1)} s (${(mb / s).toFixed(3)} MB/s)`)
  }

  let questions = readFileSync(join(DATA, 'questions.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Question)
  if (args.sample) questions = questions.filter((_, i) => i % Number(args.sample) === 0)
  if (args.limit) questions = questions.slice(0, Number(args.limit))
  const strategies = (args.strategy ? [args.strategy] : ['rag', 'cart']) as ('rag' | 'cart')[]
  const rows: string[] = []
  const fails: string[] = []
  const misses: string[] = []
  const shortDump: string[] = []
  for (const strategy of strategies) {
    let r1 = 0
    let r5 = 0
    let contained = 0
    let words = 0
    let f1 = 0
    let declined = 0
    // Short answers (a null one counts as empty), overall and on the odd-numbered articles, held out
    // from fitting the span picker's weights (the even ones were its tuning split).
    const short = { em: 0, f1: 0, heldEm: 0, heldF1: 0, held: 0 }
    const lat: number[] = []
    // One warm-up pass over a few questions so the first timings do not include JIT compilation.
    for (const q of questions.slice(0, 50)) await engine.ask(base, { question: q.question, k: 5, strategy })
    for (const q of questions) {
      const golds = q.answers.map((a) => a.text)
      const s = performance.now()
      const explain: { sentences?: string[] } = {}
      const res: AskResult = await engine.ask(base, { question: q.question, k: 5, strategy }, explain)
      lat.push(performance.now() - s)
      const hit1 = res.sources[0] !== undefined && containsGold(res.sources[0].snippet, golds)
      if (hit1) r1++
      if (res.sources.slice(0, 5).some((x) => containsGold(x.snippet, golds))) r5++
      else if (args.misses) {
        const wide = await engine.ask(base, { question: q.question, k: 20, strategy })
        const at = wide.sources.findIndex((x) => containsGold(x.snippet, golds))
        misses.push(
          `${strategy}\t${at + 1}\t${q.question}\t${golds[0]}\t${wide.sources.map((x) => `${x.id}=${x.score}`).join(' ')}`,
        )
      }
      if (!res.answered) declined++
      const ok = containsGold(res.answer, golds)
      if (ok) contained++
      words += res.answer.trim().split(/\s+/).length
      f1 += tokenF1(res.answer, golds)
      const sem = res.shortAnswer !== null && exactMatch(res.shortAnswer, golds) ? 1 : 0
      const sf1 = res.shortAnswer === null ? 0 : tokenF1(res.shortAnswer, golds)
      short.em += sem
      short.f1 += sf1
      if (files.indexOf(q.document.replace(/^articles\//, '')) % 2 === 1) {
        short.held++
        short.heldEm += sem
        short.heldF1 += sf1
      } else if (args['short-dump'] && strategy === strategies[0])
        shortDump.push(
          JSON.stringify({ question: res.condensedQuestion, sentences: explain.sentences ?? [], golds }),
        )
      if (!ok) fails.push(`${strategy}\t${hit1 ? 'ANS' : 'R1'}\t${q.question}\t${golds[0]}\t${res.answer}`)
    }
    lat.sort((a, b) => a - b)
    const n = questions.length
    rows.push(
      `| ${strategy} | ${(r1 / n).toFixed(4)} | ${(r5 / n).toFixed(4)} | ${(contained / n).toFixed(4)} | ` +
        `${(words / n).toFixed(2)} | ${(f1 / n).toFixed(3)} | ${pct(lat, 0.5).toFixed(2)} | ${pct(lat, 0.99).toFixed(2)} | ` +
        `${(declined / n).toFixed(4)} | ${(short.em / n).toFixed(3)} | ${(short.f1 / n).toFixed(3)} | ` +
        `${(short.heldEm / Math.max(1, short.held)).toFixed(3)} | ${(short.heldF1 / Math.max(1, short.held)).toFixed(3)} |`,
    )
  }
  console.log(`\n${questions.length} questions, k = 5\n`)
  console.log(
    '| strategy | recall@1 | recall@5 | containment | mean words | token F1 | p50 ms | p99 ms | declined | ' +
      'short EM | short F1 | held-out short EM | held-out short F1 |',
  )
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |')
  for (const r of rows) console.log(r)
  if (!args['no-abstain']) {
    const all = readFileSync(join(DATA, 'questions.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Question)
      .map((q) => ({ ...q, document: q.document.replace(/^articles\//, '') }))
    await measureAbstention(
      engine,
      articles.map((a) => ({ file: a.file, title: a.title, parts: sections(a.text) })),
      all,
      containsGold,
      strategies,
      args['abstain-signals'],
    )
  }
  if (args.fails) writeFileSync(args.fails, fails.join('\n'))
  if (args.misses) writeFileSync(args.misses, misses.join('\n'))
  if (args['short-dump']) writeFileSync(args['short-dump'], shortDump.join('\n'))
}

/** What the embeddings server or the built-in encoder did over the whole run. */
function embeddingStats(bench: BenchEngine) {
  const encoder = bench.encoderStats()
  if (encoder.asked > 0)
    console.log(
      `\nbuilt-in encoder: asked about ${encoder.asked} questions, ${(encoder.ms / 1000).toFixed(1)} s (${(encoder.ms / encoder.asked).toFixed(0)} ms a question)`,
    )
  if (!bench.embedServer) return
  const { ms, texts } = bench.embedServer.stats()
  console.log(
    `\nembeddings: ${texts} texts in ${(ms / 1000).toFixed(1)} s (${(ms / texts).toFixed(1)} ms a text)`,
  )
}

const bench = await createBenchEngine({ embed: args.embed, embedWeight: args['embed-weight'] })
console.log(`re-ranking by meaning: ${bench.meaning}`)
if (!args['retrieval-only']) await squad(bench.engine)
if (!args['no-retrieval']) {
  const limit = args['retrieval-limit']
  await runRetrieval(bench.engine, { limit: limit ? Number(limit) : undefined, dump: args['retrieval-dump'] })
}
embeddingStats(bench)
bench.close()
