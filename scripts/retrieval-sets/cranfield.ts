// Converts the Cranfield collection (1,400 aeronautics abstracts, 225 queries, graded judgements)
// to the BEIR layout: bun scripts/retrieval-sets/cranfield.ts <dir with cran.all.1400, cran.qry,
// cranqrel> <out dir>. Its judgements all go in qrels/test.tsv: the engine was never tuned on it.
//
// Two conventions of the collection, kept as its users keep them:
// - cranqrel numbers the queries 1..225 in the order of cran.qry, whose own `.I` ids skip (001,
//   002, 004, ...): a query's id here is its position in cran.qry, and its `.I` is not used.
// - the relevance codes are Cleverdon's, 1 (a complete answer) to 4 (of minimum interest), with -1
//   for "no relevant document"; the gain is 5 - code (4 down to 1), and -1 rows are dropped.
import { join } from 'node:path'
import { type Judgement, type RetrievalSetData, writeBeirSet } from './beir'
import { readColumns, readSmart } from './smart'

/** The graded gain of a Cleverdon relevance code, or null for a row that judges nothing relevant. */
export function cranfieldGain(code: number): number | null {
  return code >= 1 && code <= 4 ? 5 - code : null
}

/** The Cranfield collection in `src` (cran.all.1400, cran.qry, cranqrel) as a retrieval set. */
export function convertCranfield(src: string): RetrievalSetData {
  const corpus = readSmart(join(src, 'cran.all.1400')).map((r) => ({
    id: r.id,
    title: r.fields.T ?? '',
    text: r.fields.W ?? '',
  }))
  const queries = readSmart(join(src, 'cran.qry')).map((r, i) => ({
    id: String(i + 1),
    text: r.fields.W ?? '',
  }))
  const best = new Map<string, Judgement>()
  for (const [query, doc, code] of readColumns(join(src, 'cranqrel'))) {
    const score = cranfieldGain(Number(code))
    if (score === null || !query || !doc) continue
    // A pair judged twice keeps its higher gain.
    const key = `${query}\t${doc}`
    if ((best.get(key)?.score ?? 0) < score) best.set(key, { query, doc, score })
  }
  return { corpus, queries, qrels: { test: [...best.values()] } }
}

if (import.meta.main) {
  const [src, out] = process.argv.slice(2)
  if (!src || !out) {
    console.error('usage: bun scripts/retrieval-sets/cranfield.ts <source dir> <out dir>')
    process.exit(2)
  }
  console.log(`cranfield: ${writeBeirSet(out, convertCranfield(src))}`)
}
