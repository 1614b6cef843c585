// `npm run bench fixtures` (or `bun run bench/fixtures.bench.ts [options]`): the definitional, factual and
// table questions of bench/data/fixture-questions.json, asked of one base holding every fixture document
// (tests/fixtures/data/docs, extracted and onboarded in process: bench/lib/fixture-base.ts), k = 3 as the
// chat asks. Prints, per half (tuning, held-out) and strategy: the share of answers holding an acceptable
// answer, the share that merely repeat the question or a heading, the share starting with a cut-off
// fragment (bench/lib/fixture-metrics.ts), the share declined, the share citing a right document, and the
// mean length in words; then the same by kind of question. Asserts nothing.
// Options: --strategy cart|rag (only one), --tuning (ask only the tuning half, to iterate on it), --dump FILE
// (the tuning half's answers, one JSON a line; the held-out half's answers are written only with
// --held-out, for the run that measures it).
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import type { AskResult } from '../src/features/engine/engine.service'
import { FIXTURE_DOCS } from '../tests/helpers/fixture-data'
import { createBenchEngine } from './lib/bench-engine'
import { fixtureDocumentId, onboardFixtures } from './lib/fixture-base'
import {
  answerSentences,
  type FixtureQuestion,
  holdsAnswer,
  merelyRepeats,
  startsWithFragment,
} from './lib/fixture-metrics'

const { values: args } = parseArgs({
  args: process.argv.slice(2),
  options: {
    strategy: { type: 'string' },
    tuning: { type: 'boolean' },
    dump: { type: 'string' },
    'held-out': { type: 'boolean' },
  },
})

const SET = join(import.meta.dir, 'data/fixture-questions.json')
const questions = (
  JSON.parse(readFileSync(SET, 'utf8')) as { questions: FixtureQuestion[] }
).questions.filter((q) => !args.tuning || q.half === 'tuning')

interface Judged {
  q: FixtureQuestion
  strategy: 'cart' | 'rag'
  r: AskResult
  holds: boolean
  repeats: boolean
  fragment: boolean
  rightDocument: boolean
  words: number
}

const be = await createBenchEngine()
const t0 = performance.now()
const base = 'cor_fixtures'
const docs = await onboardFixtures(be.engine, base)
console.log(
  `Onboarded ${docs.length} fixture documents (${docs.reduce((n, d) => n + d.sections, 0)} sections) in ${((performance.now() - t0) / 1000).toFixed(1)} s; re-ranking by meaning: ${be.meaning}`,
)
// The documents' texts as a base holds them (the sidecar): where a quoted sentence is looked up.
const texts = new Map<string, string>()
const textOf = async (path: string) => {
  let t = texts.get(path)
  if (t === undefined) {
    const { extractText } = await import('../src/features/ingest/extract/extract')
    const bytes = new Uint8Array(readFileSync(join(FIXTURE_DOCS, path)))
    t = (await extractText({ bytes, filename: path }, { pdfThread: false })).text
    texts.set(path, t)
  }
  return t
}

const strategies = (args.strategy ? [args.strategy] : ['rag', 'cart']) as ('cart' | 'rag')[]
const judged: Judged[] = []
for (const strategy of strategies) {
  for (const q of questions) {
    const r = await be.engine.ask(base, { question: q.question, k: 3, strategy })
    const cited = r.answered ? citedSources(r) : []
    // A quoted sentence is looked up in the document of the source it cites first.
    const doc = cited[0] ? await textOf(cited[0].filename) : ''
    const sentences = r.answered ? answerSentences(r.answer, r.shortAnswer) : []
    judged.push({
      q,
      strategy,
      r,
      holds: r.answered && holdsAnswer(r.answer, q.answers),
      repeats: r.answered && merelyRepeats(q.question, sentences, doc),
      fragment: r.answered && startsWithFragment(sentences, doc),
      rightDocument: cited.some((s) => q.documents.some((d) => fixtureDocumentId(d) === s.documentId)),
      words: r.answered ? r.answer.split(/\s+/).filter(Boolean).length : 0,
    })
  }
}

/** The sources an answer cites ([n] in its text), in order of first citation. */
function citedSources(r: AskResult) {
  const seen = new Set<number>()
  for (const m of r.answer.matchAll(/\[(\d+)\]/g)) seen.add(Number(m[1]))
  return [...seen].map((n) => r.sources[n - 1]).filter((s) => s !== undefined)
}

const pct = (n: number, d: number) => (d === 0 ? '   -  ' : `${((100 * n) / d).toFixed(1).padStart(5)}%`)
const row = (label: string, js: Judged[]) => {
  const answered = js.filter((j) => j.r.answered)
  const words = answered.reduce((n, j) => n + j.words, 0) / Math.max(1, answered.length)
  return `| ${label.padEnd(22)} | ${String(js.length).padStart(3)} | ${pct(js.filter((j) => j.holds).length, js.length)} | ${pct(js.filter((j) => j.repeats).length, js.length)} | ${pct(js.filter((j) => j.fragment).length, js.length)} | ${pct(js.length - answered.length, js.length)} | ${pct(js.filter((j) => j.rightDocument).length, js.length)} | ${words.toFixed(1).padStart(5)} |`
}
const header =
  '| questions              |   n | answer |repeats |fragment|declined| right doc | words |\n|---|---|---|---|---|---|---|---|'
for (const half of args.tuning ? (['tuning'] as const) : (['tuning', 'held-out'] as const)) {
  console.log(`\n${half} half\n${header}`)
  for (const strategy of strategies) {
    const js = judged.filter((j) => j.q.half === half && j.strategy === strategy)
    console.log(row(`${strategy}: all`, js))
    for (const kind of ['definition', 'fact', 'table'] as const)
      console.log(
        row(
          `${strategy}: ${kind}`,
          js.filter((j) => j.q.kind === kind),
        ),
      )
  }
}

if (args.dump) {
  const out = judged
    .filter((j) => j.q.half === 'tuning' || args['held-out'])
    .map((j) =>
      JSON.stringify({
        id: j.q.id,
        half: j.q.half,
        strategy: j.strategy,
        question: j.q.question,
        answer: j.r.answer,
        short: j.r.shortAnswer,
        holds: j.holds,
        repeats: j.repeats,
        fragment: j.fragment,
        right_document: j.rightDocument,
        sources: j.r.sources.map((s) => `${s.filename} | ${s.title} | ${s.snippet.slice(0, 120)}`),
      }),
    )
  writeFileSync(args.dump, `${out.join('\n')}\n`)
  console.log(`\nWrote ${out.length} answers to ${args.dump}`)
}
be.close()
