// Converts the CACM collection (3,204 Communications of the ACM titles, about half with an abstract;
// 64 queries, 52 of them judged, binary relevance) to the BEIR layout: bun
// scripts/retrieval-sets/cacm.ts <dir with cacm.all, query.text, qrels.text> <out dir>. qrels.text
// writes query ids with a leading zero (01, 02, ...) where query.text writes 1, 2, ...: ids are
// compared as numbers. A query record without text (some copies end with an empty `.I 0`) is left
// out. Its judgements all go in qrels/test.tsv: the engine was never tuned on it.
import { join } from 'node:path'
import { type Judgement, type RetrievalSetData, writeBeirSet } from './beir'
import { readColumns, readSmart } from './smart'

const id = (s: string) => String(Number(s))

/** The CACM collection in `src` (cacm.all, query.text, qrels.text) as a retrieval set. */
export function convertCacm(src: string): RetrievalSetData {
  const corpus = readSmart(join(src, 'cacm.all')).map((r) => ({
    id: id(r.id),
    title: r.fields.T ?? '',
    text: r.fields.W ?? '',
  }))
  const queries = readSmart(join(src, 'query.text'))
    .map((r) => ({ id: id(r.id), text: r.fields.W ?? '' }))
    .filter((q) => q.text !== '')
  const pairs = new Map<string, Judgement>()
  for (const [query, doc] of readColumns(join(src, 'qrels.text'))) {
    if (query && doc) pairs.set(`${id(query)}\t${id(doc)}`, { query: id(query), doc: id(doc), score: 1 })
  }
  return { corpus, queries, qrels: { test: [...pairs.values()] } }
}

if (import.meta.main) {
  const [src, out] = process.argv.slice(2)
  if (!src || !out) {
    console.error('usage: bun scripts/retrieval-sets/cacm.ts <source dir> <out dir>')
    process.exit(2)
  }
  console.log(`cacm: ${writeBeirSet(out, convertCacm(src))}`)
}
