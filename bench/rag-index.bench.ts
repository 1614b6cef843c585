// Where the rag index lives once the state is on PostgreSQL (issue 39): PostgreSQL's own full-text
// search against a per-base SQLite FTS5 file (an artifact kept in the object store and loaded by the
// process that answers), side by side in one run on the same passages and questions: the 24
// squad-dev articles' paragraphs as one base (and the same ten times over, as ten bases' worth of
// rows in one table), every question's words OR-ed, ranked by each engine's own scoring.
//
// Figures: build time, index size, query p50/p99 (µs) and recall@1/@5 of the gold paragraph. For the
// artifact, also what a process that has not got the base pays once: copying the file from the
// object store (here a local directory: a lower bound; on S3 add size / bandwidth) and opening it.
// PostgreSQL is the tests' private cluster (loopback, fsync off). Prints figures only.
import { Database } from 'bun:sqlite'
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SQL } from 'bun'
import { testPostgres } from '../tests/helpers/postgres'
import { sharedData } from './lib/shared-data'

const DATA = sharedData('squad-dev', 'the SQuAD v1.1 dev half (24 articles, 5,665 questions)')
const QUESTIONS = Number(process.env.BENCH_QUESTIONS ?? 1000)
const SCALES = (process.env.BENCH_SCALES ?? '1,10').split(',').map(Number)

interface Passage {
  id: number
  gold: string
  text: string
}

function passages(scale: number): Passage[] {
  const out: Passage[] = []
  const files = readdirSync(join(DATA, 'articles')).sort()
  for (let copy = 0; copy < scale; copy++) {
    for (const f of files) {
      const paras = readFileSync(join(DATA, 'articles', f), 'utf8').split(/\n\s*\n/)
      paras.forEach((p, i) => {
        if (p.trim()) out.push({ id: out.length + 1, gold: `${f}#${i}#${copy}`, text: p.trim() })
      })
    }
  }
  return out
}

const questions = readFileSync(join(DATA, 'questions.jsonl'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as { document: string; paragraph: number; question: string })
  // A fixed sample spread over the file (every n-th), the same for every engine.
  .filter((_, i, all) => i % Math.max(1, Math.floor(all.length / QUESTIONS)) === 0)
  .slice(0, QUESTIONS)

function words(q: string): string[] {
  return [...new Set(q.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])]
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!
}

/** Asks every question; the gold is the paragraph in copy 0 (the copies rank as ties otherwise). */
async function measure(
  name: string,
  ask: (q: string) => Promise<number[]> | number[],
  byId: Map<number, string>,
) {
  const took: number[] = []
  let r1 = 0
  let r5 = 0
  for (const q of questions.slice(0, 50)) await ask(q.question)
  for (const q of questions) {
    const t = performance.now()
    const ids = await ask(q.question)
    took.push((performance.now() - t) * 1000)
    const gold = `${q.document.replace(/^articles\//, '')}#${q.paragraph}#`
    const golds = ids.map((id) => byId.get(id)!.startsWith(gold))
    if (golds[0]) r1++
    if (golds.slice(0, 5).some(Boolean)) r5++
  }
  const n = questions.length
  console.log(
    `  ${name.padEnd(34)} p50 ${pct(took, 50).toFixed(0).padStart(6)} µs  p99 ${pct(took, 99).toFixed(0).padStart(7)} µs  recall@1 ${(r1 / n).toFixed(3)}  @5 ${(r5 / n).toFixed(3)}`,
  )
}

const pg = await testPostgres()
const dir = mkdtempSync(join(tmpdir(), 'engram-rag-index-'))
console.log(`${questions.length} squad-dev questions; passages are the articles' paragraphs; top 5`)
try {
  for (const scale of SCALES) {
    const ps = passages(scale)
    const byId = new Map(ps.map((p) => [p.id, p.gold]))
    const mb = ps.reduce((n, p) => n + Buffer.byteLength(p.text), 0) / 1e6
    console.log(`\n${scale}x: ${ps.length} passages, ${mb.toFixed(1)} MB of text`)

    // The artifact: a SQLite file with an FTS5 table (the engine's own kind of index).
    const file = join(dir, `base-${scale}.db`)
    let t = performance.now()
    const db = new Database(file)
    db.run('PRAGMA journal_mode = DELETE')
    db.run("CREATE VIRTUAL TABLE fts USING fts5(body, tokenize = 'unicode61 remove_diacritics 0')")
    const put = db.prepare('INSERT INTO fts (rowid, body) VALUES (?, ?)')
    db.transaction(() => {
      for (const p of ps) put.run(p.id, p.text)
    })()
    db.run("INSERT INTO fts(fts) VALUES ('optimize')")
    db.close()
    const buildFile = performance.now() - t
    const size = statSync(file).size
    // A process that has not got the base: copy it from the object store, open it, ask once.
    const store = join(dir, `store-${scale}.db`)
    copyFileSync(file, store)
    t = performance.now()
    const local = join(dir, `cache-${scale}.db`)
    copyFileSync(store, local)
    const opened = new Database(local, { readonly: true })
    const search = opened.prepare('SELECT rowid AS id FROM fts WHERE fts MATCH ? ORDER BY bm25(fts) LIMIT 5')
    search.all(
      words(questions[0]!.question)
        .map((w) => `"${w}"`)
        .join(' OR '),
    )
    const cold = performance.now() - t
    console.log(
      `  SQLite FTS5 file: built in ${buildFile.toFixed(0)} ms, ${(size / 1e6).toFixed(1)} MB; a process without it copies, opens and answers in ${cold.toFixed(1)} ms (local copy)`,
    )
    await measure(
      'SQLite FTS5 file, bm25()',
      (q) => {
        const w = words(q)
        return w.length
          ? (search.all(w.map((x) => `"${x}"`).join(' OR ')) as { id: number }[]).map((r) => r.id)
          : []
      },
      byId,
    )
    opened.close()

    if (!pg.available) {
      console.log(`  PostgreSQL: skipped (${pg.reason})`)
      continue
    }
    const client = new SQL({ url: await pg.freshDatabase(), max: 4 })
    for (const config of ['simple', 'english'] as const) {
      await client.unsafe('DROP TABLE IF EXISTS passages')
      t = performance.now()
      await client.unsafe(
        `CREATE TABLE passages (id bigint PRIMARY KEY, base text NOT NULL, body text NOT NULL,
           tsv tsvector GENERATED ALWAYS AS (to_tsvector('${config}', body)) STORED)`,
      )
      for (let i = 0; i < ps.length; i += 1000) {
        const rows = ps.slice(i, i + 1000).map((p) => ({ id: p.id, base: 'cor_1', body: p.text }))
        await client`INSERT INTO passages ${client(rows)}`
      }
      await client.unsafe('CREATE INDEX passages_tsv ON passages USING gin (tsv)')
      await client.unsafe('ANALYZE passages')
      const build = performance.now() - t
      const sized = (await client`SELECT pg_total_relation_size('passages')::bigint AS bytes`) as {
        bytes: string
      }[]
      const bytes = sized[0]?.bytes ?? 0
      console.log(
        `  PostgreSQL tsvector '${config}' + GIN: built in ${build.toFixed(0)} ms, ${(Number(bytes) / 1e6).toFixed(1)} MB`,
      )
      // ts_rank_cd (cover density) reads every match's positions: 0.3 s a question at 10x, and far
      // below ts_rank at 1x, so it is measured at 1x only.
      for (const rank of scale === 1 ? (['ts_rank', 'ts_rank_cd'] as const) : (['ts_rank'] as const)) {
        await measure(
          `PostgreSQL '${config}', ${rank}()`,
          async (q) => {
            const w = words(q)
            if (!w.length) return []
            const query = w.map((x) => `'${x}'`).join(' | ')
            const rows = (await client.unsafe(
              `SELECT id FROM passages, to_tsquery('${config}', $1) AS q
               WHERE base = 'cor_1' AND tsv @@ q ORDER BY ${rank}(tsv, q) DESC, id LIMIT 5`,
              [query],
            )) as { id: string }[]
            return rows.map((r) => Number(r.id))
          },
          byId,
        )
      }
    }
    await client.close()
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
