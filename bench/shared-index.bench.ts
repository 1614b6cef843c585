// What one passage index for every replica costs (issue 40, engine.sync.ts): the squad-dev articles
// indexed as a run does (groups of about 128 KB of text, one `indexSections` a group), by an engine
// keeping its index to itself and by one publishing each group to the others, side by side in one run;
// then what another replica pays once to take the base (its first question's wait), and what every
// question pays to learn that its copy is current (one read of the publication), and what a current
// replica pays to take one more group's change. At 1x and 10x.
//
// The features' store is SQLite (a file, as one machine has it) and the object store a directory in
// memory: the figures are the engine's own work (the snapshot's copy and the base's terms indexed
// again), not the network's; on S3 add the file's size over the bandwidth, and on PostgreSQL a round
// trip a question. Prints figures only.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { migrations } from '../migrations/index'
import { PublicationsRepo } from '../src/features/engine/engine.publications.repo'
import { Engine, type SectionInput } from '../src/features/engine/engine.service'
import { systemClock } from '../src/platform/clock/clock'
import { cryptoRandom } from '../src/platform/crypto/random'
import { openDatabase } from '../src/platform/db/db'
import { migrate } from '../src/platform/db/migrate'
import { sqliteStore } from '../src/platform/db/store'
import { memoryStore } from '../tests/unit/engine/fixture'
import { sharedData } from './lib/shared-data'

const DATA = sharedData('squad-dev', 'the SQuAD v1.1 dev half (24 articles, 5,665 questions)')
const SCALES = (process.env.BENCH_SCALES ?? '1,10').split(',').map(Number)
const GROUP_CHARS = 128 * 1024
const QUESTIONS = 200

const files = readdirSync(join(DATA, 'articles')).sort()
const questions = readFileSync(join(DATA, 'questions.jsonl'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => (JSON.parse(l) as { question: string }).question)
  .filter((_, i) => i % 25 === 0)
  .slice(0, QUESTIONS)

/** The articles' paragraphs as sections, `scale` copies, in groups of about GROUP_CHARS. */
function groups(scale: number): SectionInput[][] {
  const out: SectionInput[][] = [[]]
  let chars = 0
  for (let copy = 0; copy < scale; copy++)
    for (const f of files) {
      const text = readFileSync(join(DATA, 'articles', f), 'utf8')
      const documentId = `doc_${copy}_${f}`
      const input = { workspaceId: 'ws_1', baseId: 'cor_1', documentId, sectionId: `sec_${copy}_${f}` }
      out.at(-1)!.push({ ...input, title: f, filename: f, text })
      chars += text.length
      if (chars >= GROUP_CHARS) {
        out.push([])
        chars = 0
      }
    }
  return out.filter((g) => g.length > 0)
}

const dirs: string[] = []
function engine(shared: ReturnType<typeof memoryStore>, storeFile: string | null): Engine {
  const dir = mkdtempSync(join(tmpdir(), 'engram-shared-bench-'))
  dirs.push(dir)
  const db = openDatabase(join(dir, 'index.db'))
  migrate(db, migrations)
  let sharedDeps = null
  if (storeFile) {
    const storeDb = openDatabase(storeFile)
    migrate(storeDb, migrations)
    const store = sqliteStore(storeDb)
    sharedDeps = { store, objects: shared, clock: systemClock, random: cryptoRandom, dir }
  }
  return new Engine({ db, store: shared, cacheBytes: 64 * 1024 * 1024, shared: sharedDeps })
}

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.floor((p / 100) * (xs.length - 1))]!
const ms = (x: number) => x.toFixed(1)

for (const scale of SCALES) {
  const gs = groups(scale)
  const mb = gs.flat().reduce((n, s) => n + s.text.length, 0) / 1e6
  const storeFile = join(mkdtempSync(join(tmpdir(), 'engram-shared-store-')), 'store.db')
  dirs.push(join(storeFile, '..'))
  const objects = memoryStore()
  const alone = engine(memoryStore(), null)
  const a = engine(objects, storeFile)
  const b = engine(objects, storeFile)
  // Alternating group by group, so both see the same machine.
  const took = { alone: 0, shared: 0 }
  const perGroup: number[] = []
  for (const g of gs) {
    let t = performance.now()
    await alone.indexSections(g)
    took.alone += performance.now() - t
    t = performance.now()
    await a.indexSections(g)
    const d = performance.now() - t
    took.shared += d
    perGroup.push(d)
  }
  const pub = (await new PublicationsRepo(sqliteStore(openDatabase(storeFile))).current('cor_1'))!
  console.log(
    `${scale}x: ${mb.toFixed(1)} MB of text in ${gs.length} groups; indexed alone ${ms(took.alone)} ms, ` +
      `shared ${ms(took.shared)} ms (+${ms(took.shared - took.alone)} ms, ${ms((took.shared - took.alone) / gs.length)} ms a publication); ` +
      `last group ${ms(perGroup.at(-1)!)} ms; generation ${pub.generation}, its last snapshot (generation ${pub.snapshotGeneration}) ${(pub.bytes / 1e6).toFixed(1)} MB`,
  )
  let t = performance.now()
  await b.syncBase('cor_1')
  const taken = performance.now() - t
  t = performance.now()
  const first = await b.ask('cor_1', { question: questions[0]!, k: 5, strategy: 'rag' })
  const firstAsk = performance.now() - t
  const checks: number[] = []
  let same = 0
  for (const q of questions) {
    const t0 = performance.now()
    await b.syncBase('cor_1')
    checks.push((performance.now() - t0) * 1000)
    const [x, y] = [await a.ask('cor_1', { question: q, k: 5 }), await b.ask('cor_1', { question: q, k: 5 })]
    if (x.answer === y.answer && JSON.stringify(x.sources) === JSON.stringify(y.sources)) same++
  }
  // One more group written by the first replica: what the second, current until then, pays to take it.
  const extra = gs[0]!.map((x) => ({
    ...x,
    documentId: `${x.documentId}_more`,
    sectionId: `${x.sectionId}_more`,
  }))
  await a.indexSections(extra)
  t = performance.now()
  await b.syncBase('cor_1')
  const change = performance.now() - t
  console.log(`${scale}x: a current replica takes one more group's change in ${ms(change)} ms`)
  console.log(
    `${scale}x: another replica takes the base in ${ms(taken)} ms (its first question then ${ms(firstAsk)} ms, ` +
      `${first.sources.length} sources); a current copy's check p50 ${pct(checks, 50).toFixed(0)} µs, p99 ${pct(checks, 99).toFixed(0)} µs; ` +
      `${same}/${questions.length} questions answered the same, with the same sources, by both`,
  )
}
for (const d of dirs) rmSync(d, { recursive: true, force: true })
