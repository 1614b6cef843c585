// Retrieval quality on public retrieval sets with relevance judgements (BEIR layout; how to get them:
// scripts/retrieval-sets/README.md): nDCG@10 and recall@10 of rag and cart (k = 10, one source per
// document) beside plain SQLite FTS5 bm25() over the same documents, with a paired bootstrap 95%
// interval of each strategy's difference from bm25. Each set is one base, one document per corpus
// entry. Prints; asserts nothing. `npm run bench:quality` runs it at the end (its --no-retrieval,
// --retrieval-only); alone: bun run bench/retrieval.ts [--retrieval-limit N] [--retrieval-dump FILE]
// [--embed] [--embed-weight W]. Sets are looked for in ENGRAM_RETRIEVAL_DATA's directories
// (colon-separated), by default ../shared/data/retrieval and bench/.data/retrieval. A query that is
// itself a document of the corpus (ArguAna's points) is left out of its own ranking, as BEIR scores it.
// --retrieval-limit N asks the first N queries of each split; --retrieval-dump FILE writes one JSON a
// line per query of the tuning splits and system (set, split, query, system, ndcg, recall, each
// relevant document's rank or null, the ranking) to study them. Held-out splits are never dumped:
// their totals are all that should be seen of them, so that they still measure unseen data.
import { writeFileSync } from 'node:fs'
import { relative } from 'node:path'
import { parseArgs } from 'node:util'
import type { Engine } from '../src/features/engine/engine.service'
import { createBenchEngine, onboardDocuments } from './lib/bench-engine'
import { type Interval, ndcgAt, pairedBootstrap, recallAt } from './lib/ndcg'
import { Fts5Bm25 } from './lib/retrieval-bm25'
import {
  findSets,
  loadSet,
  type RetrievalSet,
  type RetrievalSplit,
  retrievalDirs,
} from './lib/retrieval-sets'
import { MISSING_DATA_EXIT } from './lib/shared-data'

/** What the retrieval bench is asked to do. */
export interface RetrievalOptions {
  /** Ask only the first N queries of each split. */
  limit?: number
  /** Write the per-query records of the tuning splits (JSON Lines) to this file. */
  dump?: string
  /** Where to look for sets; ENGRAM_RETRIEVAL_DATA's directories, or the defaults, otherwise. */
  dirs?: string[]
}

const K = 10
const SYSTEMS = ['rag', 'cart', 'bm25', 'bm25 porter'] as const
type System = (typeof SYSTEMS)[number]

/** One system's scores on a split, query by query. */
interface Scores {
  ndcg: number[]
  recall: number[]
  ms: number[]
}

const mean = (a: number[]) => (a.length ? a.reduce((s, x) => s + x, 0) / a.length : 0)
const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)] ?? 0
const signed = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(3)}`
const interval = (d: Interval) => `${signed(d.mean)} [${signed(d.low)}, ${signed(d.high)}]`

/** Asks every query of a split of every system; returns the scores and appends the dump's records. */
async function askSplit(
  set: RetrievalSet,
  split: RetrievalSplit,
  rank: Record<System, (question: string) => Promise<string[]> | string[]>,
  dump: string[] | null,
): Promise<Record<System, Scores>> {
  const empty = (): Scores => ({ ndcg: [], recall: [], ms: [] })
  const scores = Object.fromEntries(SYSTEMS.map((s) => [s, empty()])) as Record<System, Scores>
  for (const q of split.queries) {
    for (const system of SYSTEMS) {
      const t0 = performance.now()
      // A query that is itself a document of the corpus (ArguAna's points) is left out of its own
      // ranking, as BEIR's evaluation does (ignore_identical_ids): each system ranks one more.
      const ranked = (await rank[system](q.text)).filter((d) => d !== q.id).slice(0, K)
      const s = scores[system]
      s.ms.push(performance.now() - t0)
      s.ndcg.push(ndcgAt(ranked, q.judged, K))
      s.recall.push(recallAt(ranked, q.judged, K))
      if (dump) {
        const relevant = Object.fromEntries(
          [...q.judged.keys()].map((d) => [d, ranked.indexOf(d) + 1 || null]),
        )
        dump.push(
          JSON.stringify({
            set: set.name,
            split: split.name,
            query: q.id,
            system,
            ndcg: s.ndcg.at(-1),
            recall: s.recall.at(-1),
            relevant,
            ranked,
          }),
        )
      }
    }
  }
  return scores
}

/** The table of one split: each system's means and each strategy's difference from both bm25s. */
function printSplit(set: RetrievalSet, split: RetrievalSplit, scores: Record<System, Scores>): void {
  const role = split.tuning ? 'tuning split' : 'held out'
  console.log(`\n${set.name} · ${split.name} (${role}) · ${split.queries.length} queries · k = ${K}\n`)
  console.log(
    '| system | nDCG@10 | recall@10 | p50 ms | nDCG − bm25 [95% CI] | nDCG − bm25 porter [95% CI] |',
  )
  console.log('| --- | --- | --- | --- | --- | --- |')
  for (const system of SYSTEMS) {
    const s = scores[system]
    const engine = system === 'rag' || system === 'cart'
    const vs = (base: System) => (engine ? interval(pairedBootstrap(s.ndcg, scores[base].ndcg)) : '')
    console.log(
      `| ${system} | ${mean(s.ndcg).toFixed(3)} | ${mean(s.recall).toFixed(3)} | ${median(s.ms).toFixed(2)} | ` +
        `${vs('bm25')} | ${vs('bm25 porter')} |`,
    )
  }
}

/** Onboards a set as one base, asks each split of every system, prints the tables; removes the base. */
async function measureSet(
  engine: Engine,
  set: RetrievalSet,
  options: RetrievalOptions,
  dump: string[] | null,
) {
  const base = `cor_retrieval_${set.name.replace(/[^a-z0-9]/gi, '_')}`
  // One plain-text file a document, titled by its file name as the product titles a .txt file; the
  // document's own title is the first paragraph of its text, as bm25 reads it too.
  const docs = set.corpus.map((d) => ({
    file: `${d.id}.txt`,
    title: `${d.id}.txt`,
    text: `${d.title}\n\n${d.text}`,
  }))
  const onboarded = await onboardDocuments(engine, base, docs)
  const bm25 = new Fts5Bm25(set.corpus, 'unicode61')
  const porter = new Fts5Bm25(set.corpus, 'porter unicode61')
  const idOf = new Map(set.corpus.map((d) => [`doc_${d.id}.txt`, d.id]))
  const ask = (strategy: 'rag' | 'cart') => async (question: string) => {
    const r = await engine.ask(base, { question, k: K + 1, strategy, distinctDocuments: true })
    return r.sources.map((s) => idOf.get(s.documentId) ?? s.documentId)
  }
  const rank = {
    rag: ask('rag'),
    cart: ask('cart'),
    bm25: (q: string) => bm25.rank(q, K + 1),
    'bm25 porter': (q: string) => porter.rank(q, K + 1),
  }
  const t0 = performance.now()
  let asked = 0
  console.log(
    `\n${set.name}: ${set.corpus.length} documents onboarded in ${onboarded.wall.toFixed(1)} s ` +
      `(${onboarded.sections} sections) from ${relative(process.cwd(), set.dir) || '.'}`,
  )
  for (const split of set.splits) {
    const limited = options.limit ? { ...split, queries: split.queries.slice(0, options.limit) } : split
    printSplit(set, limited, await askSplit(set, limited, rank, split.tuning ? dump : null))
    asked += limited.queries.length
  }
  console.log(
    `\n${set.name}: ${asked} queries asked of 4 systems in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  )
  bm25.close()
  porter.close()
  await engine.removeBase(base)
}

/** Runs the retrieval bench on every set found; false when none was. */
export async function runRetrieval(engine: Engine, options: RetrievalOptions = {}): Promise<boolean> {
  const dirs = options.dirs ?? retrievalDirs(process.env.ENGRAM_RETRIEVAL_DATA)
  const sets = findSets(dirs)
  if (sets.length === 0) {
    console.log(
      `\nretrieval: no retrieval set found in ${dirs.map((d) => relative(process.cwd(), d)).join(', ')}; ` +
        'scripts/retrieval-sets/README.md says how to get SciFact, Cranfield, CISI, CACM and ArguAna in BEIR layout; ' +
        'put them there, or name their directories in ENGRAM_RETRIEVAL_DATA (colon-separated).',
    )
    return false
  }
  const dump = options.dump ? ([] as string[]) : null
  const t0 = performance.now()
  for (const dir of sets) await measureSet(engine, loadSet(dir), options, dump)
  console.log(
    `\nretrieval: ${sets.length} set${sets.length === 1 ? '' : 's'} in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  )
  if (options.dump && dump) writeFileSync(options.dump, dump.length ? `${dump.join('\n')}\n` : '')
  return true
}

if (import.meta.main) {
  const { values: args } = parseArgs({
    args: process.argv.slice(2),
    options: {
      'retrieval-limit': { type: 'string' },
      'retrieval-dump': { type: 'string' },
      embed: { type: 'boolean' },
      'embed-weight': { type: 'string' },
    },
  })
  const bench = await createBenchEngine({ embed: args.embed, embedWeight: args['embed-weight'] })
  console.log(`re-ranking by meaning: ${bench.meaning}`)
  const found = await runRetrieval(bench.engine, {
    limit: args['retrieval-limit'] ? Number(args['retrieval-limit']) : undefined,
    dump: args['retrieval-dump'],
  })
  bench.close()
  if (!found) process.exit(MISSING_DATA_EXIT)
}
