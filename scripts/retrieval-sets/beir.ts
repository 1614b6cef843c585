// The BEIR layout every retrieval set is written in, so bench/retrieval.ts reads one format:
// corpus.jsonl ({_id, title, text} a line), queries.jsonl ({_id, text} a line) and qrels/<split>.tsv
// (a header, then query-id, corpus-id, score). The converters beside this file write it.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** One document of a corpus. */
export interface CorpusDoc {
  id: string
  title: string
  text: string
}

/** One relevance judgement: a document's graded gain for a query (above 0). */
export interface Judgement {
  query: string
  doc: string
  score: number
}

/** A retrieval set in memory: its documents, queries, and judgements by split (train, dev, test). */
export interface RetrievalSetData {
  corpus: CorpusDoc[]
  queries: { id: string; text: string }[]
  qrels: Record<string, Judgement[]>
}

/** Writes `set` under `dir` in the BEIR layout; returns the counts it wrote, for the log. */
export function writeBeirSet(dir: string, set: RetrievalSetData): string {
  mkdirSync(join(dir, 'qrels'), { recursive: true })
  const lines = (rows: unknown[]) => rows.map((r) => `${JSON.stringify(r)}\n`).join('')
  writeFileSync(
    join(dir, 'corpus.jsonl'),
    lines(set.corpus.map((d) => ({ _id: d.id, title: d.title, text: d.text }))),
  )
  writeFileSync(join(dir, 'queries.jsonl'), lines(set.queries.map((q) => ({ _id: q.id, text: q.text }))))
  const counts = [`${set.corpus.length} documents`, `${set.queries.length} queries`]
  for (const [split, rows] of Object.entries(set.qrels)) {
    const tsv = rows.map((r) => `${r.query}\t${r.doc}\t${r.score}\n`).join('')
    writeFileSync(join(dir, 'qrels', `${split}.tsv`), `query-id\tcorpus-id\tscore\n${tsv}`)
    counts.push(`${split}: ${rows.length} judgements of ${new Set(rows.map((r) => r.query)).size} queries`)
  }
  return counts.join(', ')
}
