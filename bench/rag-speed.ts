// `bun run bench/rag-speed.ts`: the rag strategy alone, in process, on squad-dev at 1x and on a
// scaled copy (100x by default), without HTTP. Each base is built once into a lasting temp folder
// (RAG_SPEED_DIR, /tmp/engram-rag-speed by default) and reused by later runs. Prints the engine's
// p50 and p99 per base; asserts nothing.
// RAG_OLD=<folder holding another checkout's src/>: the same questions are also asked through that
// code, over the same database, in alternating rounds (A B A B) so both meet the same machine load,
// and, with --compare, every squad-dev question's rag top-5 source ids and answer are compared
// (every 10th at larger sizes; --compare-n N for every Nth).
// Options: --scales 1,100 (base sizes), --questions N (timed per round), --rounds N, --unseen (each
// round and the warm-up ask questions of their own, so what the engine keeps from a question, such
// as posting lists, helps the timed ones only as far as their terms are shared).
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { migrations } from '../migrations/index'
import { builtinEmbedder } from '../src/features/engine/embedder'
import { Engine } from '../src/features/engine/engine.service'
import { openDatabase } from '../src/platform/db/db'
import { migrate } from '../src/platform/db/migrate'
import { sections } from './lib/bench-engine'
import { vary } from './lib/harness'
import { sharedData } from './lib/shared-data'

const { values: args } = parseArgs({
  args: process.argv.slice(2),
  options: {
    scales: { type: 'string', default: '1,100' },
    questions: { type: 'string', default: '400' },
    rounds: { type: 'string', default: '4' },
    compare: { type: 'boolean' },
    unseen: { type: 'boolean' },
    'compare-n': { type: 'string' },
  },
})

const DATA = sharedData('squad-dev', 'the SQuAD v1.1 dev half (24 articles, 5,665 questions)')
const DIR = process.env.RAG_SPEED_DIR ?? join(tmpdir(), 'engram-rag-speed')
// The built-in vectors' weight the product uses by default (config: embed.builtin_weight).
const BUILTIN_WEIGHT = 1.5

interface Article {
  file: string
  title: string
  text: string
}

const articles: Article[] = readdirSync(join(DATA, 'articles'))
  .sort()
  .map((file) => ({
    file,
    title: file
      .replace(/\.txt$/, '')
      .replace(/_+/g, ' ')
      .trim(),
    text: readFileSync(join(DATA, 'articles', file), 'utf8'),
  }))
const questions = readFileSync(join(DATA, 'questions.jsonl'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => (JSON.parse(l) as { question: string }).question)

// rag never reads a cartridge: the store keeps nothing.
const store = {
  getBytes: async () => null,
  put: async (k: string, b: unknown) => ({ key: k, size: (b as Uint8Array).length, sha256: '' }),
  delete: async () => {},
}

type EngineClass = typeof Engine

function engineOver(E: EngineClass, db: ReturnType<typeof openDatabase>) {
  return new E({ db, store, cacheBytes: 1 << 20, embedder: builtinEmbedder(BUILTIN_WEIGHT) })
}

/** The database of the base of `factor` copies, built on first use. */
async function baseDb(factor: number) {
  mkdirSync(DIR, { recursive: true })
  const path = join(DIR, `x${factor}.db`)
  const fresh = !existsSync(path)
  const db = openDatabase(path)
  migrate(db, migrations)
  if (!fresh) return db
  const engine = engineOver(Engine, db)
  const t0 = performance.now()
  for (let c = 0; c < factor; c++)
    for (const a of articles)
      for (const [i, part] of sections(c === 0 ? a.text : vary(a.text, c)).entries())
        await engine.onboardSection({
          workspaceId: 'ws_bench',
          baseId: 'base',
          documentId: `doc_${c}_${a.file}`,
          sectionId: `s_${c}_${a.file}_${i}`,
          title: c === 0 ? a.title : `${a.title} (copy ${c})`,
          filename: a.file,
          text: part,
        })
  console.log(`built x${factor} in ${((performance.now() - t0) / 1000).toFixed(1)} s at ${path}`)
  return db
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!
const fmt = (x: number) => x.toFixed(2)

/** Asks every question of `qs` with rag (k = 5); returns each one's time in ms. */
async function timeAsks(engine: Engine, qs: string[]): Promise<number[]> {
  const times: number[] = []
  for (const question of qs) {
    const t0 = performance.now()
    await engine.ask('base', { question, strategy: 'rag', k: 5 })
    times.push(performance.now() - t0)
  }
  return times
}

/** Counts the questions whose top-5 source ids or answer differ between two engines. */
async function compare(a: Engine, b: Engine, asked: string[]): Promise<void> {
  let ids = 0
  let answers = 0
  let order = 0
  for (const question of asked) {
    const x = await a.ask('base', { question, strategy: 'rag', k: 5 })
    const y = await b.ask('base', { question, strategy: 'rag', k: 5 })
    const xi = x.sources.map((s) => s.id)
    const yi = y.sources.map((s) => s.id)
    if (xi.join() !== yi.join()) {
      if ([...xi].sort().join() === [...yi].sort().join()) order++
      else ids++
      if (ids + order <= 5)
        console.log(`  differs: ${question}\n    old ${xi.join(' ')}\n    new ${yi.join(' ')}`)
    }
    if (x.answer !== y.answer) answers++
  }
  console.log(
    `compared ${asked.length} questions: top-5 ids differ in ${ids} (order only in ${order}), answers in ${answers}`,
  )
}

const old: EngineClass | null = process.env.RAG_OLD
  ? (await import(join(process.env.RAG_OLD, 'src/features/engine/engine.service.ts'))).Engine
  : null
const n = Number(args.questions)
// Round r's questions (the warm-up's is round -1): the same for every round unless --unseen.
const sample = (r: number) =>
  Array.from(
    { length: n },
    (_, i) => questions[((i + (args.unseen ? (r + 1) * n : 0)) * 7919) % questions.length]!,
  )
for (const factor of args.scales!.split(',').map(Number)) {
  const db = await baseDb(factor)
  const engines: [string, Engine][] = [['new', engineOver(Engine, db)]]
  if (old) engines.unshift(['old', engineOver(old, db) as Engine])
  for (const [, e] of engines) e.prepare()
  // Warm up each (JIT, page cache, term counts), then alternate rounds.
  for (const [, e] of engines) await timeAsks(e, sample(-1))
  const times = new Map<string, number[]>(engines.map(([name]) => [name, []]))
  for (let r = 0; r < Number(args.rounds); r++)
    for (const [name, e] of engines) times.get(name)!.push(...(await timeAsks(e, sample(r))))
  for (const [name, t] of times) {
    t.sort((x, y) => x - y)
    console.log(
      `x${factor} ${name}: rag p50 ${fmt(pct(t, 0.5))} ms, p90 ${fmt(pct(t, 0.9))} ms, p99 ${fmt(pct(t, 0.99))} ms`,
    )
  }
  // Every question at 1x; on a larger base, every Nth (--compare-n N), as the old code is slow there.
  const step = factor === 1 ? 1 : Number(args['compare-n'] ?? 10)
  if (args.compare && old)
    await compare(
      engines[0]![1],
      engines[1]![1],
      questions.filter((_, i) => i % step === 0),
    )
  db.$client.close()
}
