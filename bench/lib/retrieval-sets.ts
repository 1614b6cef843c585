// Retrieval sets on disk for bench/retrieval.ts, in BEIR's layout (scripts/retrieval-sets/README.md):
// <set>/corpus.jsonl, <set>/queries.jsonl, <set>/qrels/<split>.tsv. Where they are looked for:
// the directories of ENGRAM_RETRIEVAL_DATA (colon-separated; each a set or a parent of sets), by
// default ../shared/data/retrieval and bench/.data/retrieval (ignored by git).
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import type { Judged } from './ndcg'
import { SHARED_DATA } from './shared-data'

/** The directories searched when ENGRAM_RETRIEVAL_DATA is not set. */
export const DEFAULT_RETRIEVAL_DIRS = [
  join(SHARED_DATA, 'retrieval'),
  resolve(import.meta.dir, '../.data/retrieval'),
]

/** One split of a set: its queries with judgements, in the order of its qrels file. */
export interface RetrievalSplit {
  name: string
  /** A `train` or `dev` split is for tuning; any other is held out. */
  tuning: boolean
  queries: { id: string; text: string; judged: Judged }[]
}

/** A set loaded: its documents (id, title, text) and its splits. */
export interface RetrievalSet {
  name: string
  dir: string
  corpus: { id: string; title: string; text: string }[]
  splits: RetrievalSplit[]
}

/** The directories to search: ENGRAM_RETRIEVAL_DATA's (colon-separated), or the defaults. */
export function retrievalDirs(env: string | undefined): string[] {
  const listed = (env ?? '').split(':').filter(Boolean)
  return listed.length ? listed.map((d) => resolve(d)) : DEFAULT_RETRIEVAL_DIRS
}

const isSet = (dir: string) => existsSync(join(dir, 'corpus.jsonl')) && existsSync(join(dir, 'qrels'))

/** The set directories under `dirs` (each a set, or a parent of sets), once each, sorted by name within a parent. */
export function findSets(dirs: readonly string[]): string[] {
  const found = new Map<string, string>()
  for (const dir of dirs) {
    if (!existsSync(dir) || !statSync(dir).isDirectory()) continue
    const candidates = isSet(dir)
      ? [dir]
      : readdirSync(dir)
          .sort()
          .map((name) => join(dir, name))
          .filter(isSet)
    for (const c of candidates) found.set(realpathSync(c), c)
  }
  return [...found.values()]
}

/** The JSON objects of a JSON Lines file. */
function jsonLines<T>(path: string): T[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as T)
}

/** A qrels file's judgements by query (positive gains only), in the order queries first appear. */
function readQrels(path: string): Map<string, Map<string, number>> {
  const byQuery = new Map<string, Map<string, number>>()
  for (const [i, line] of readFileSync(path, 'utf8').split('\n').entries()) {
    const [query, doc, score] = line.trim().split('\t')
    const gain = Number(score)
    // The first line is BEIR's header (query-id, corpus-id, score); its score is not a number.
    if (i === 0 && Number.isNaN(gain)) continue
    if (!query || !doc || !(gain > 0)) continue
    const judged = byQuery.get(query) ?? new Map<string, number>()
    byQuery.set(query, judged.set(doc, Math.max(gain, judged.get(doc) ?? 0)))
  }
  return byQuery
}

/** Loads a set: its corpus, and each qrels split's queries that have text and a relevant document. */
export function loadSet(dir: string): RetrievalSet {
  const corpus = jsonLines<{ _id: string; title?: string; text?: string }>(join(dir, 'corpus.jsonl')).map(
    (d) => ({
      id: String(d._id),
      title: d.title ?? '',
      text: d.text ?? '',
    }),
  )
  const texts = new Map(
    jsonLines<{ _id: string; text: string }>(join(dir, 'queries.jsonl')).map((q) => [String(q._id), q.text]),
  )
  const splits = readdirSync(join(dir, 'qrels'))
    .filter((f) => f.endsWith('.tsv'))
    .sort()
    .map((f) => {
      const name = f.replace(/\.tsv$/, '')
      const queries = [...readQrels(join(dir, 'qrels', f))]
        .filter(([id]) => texts.has(id))
        .map(([id, judged]) => ({ id, text: texts.get(id)!, judged }))
      return { name, tuning: name === 'train' || name === 'dev', queries }
    })
    .filter((s) => s.queries.length > 0)
    // The tuning splits first, then the held-out ones.
    .sort((a, b) => Number(a.tuning === false) - Number(b.tuning === false))
  return { name: basename(dir), dir, corpus, splits }
}
