// Converts the CISI collection (1,460 library-science abstracts, 112 queries, 76 of them judged,
// binary relevance) to the BEIR layout: bun scripts/retrieval-sets/cisi.ts <dir with CISI.ALL,
// CISI.QRY, CISI.REL> <out dir>. CISI.QRY's `.I` ids run 1..112 and CISI.REL uses them. Its
// judgements all go in qrels/test.tsv: the engine was never tuned on it.
import { join } from 'node:path'
import { type Judgement, type RetrievalSetData, writeBeirSet } from './beir'
import { readColumns, readSmart } from './smart'

/** The CISI collection in `src` (CISI.ALL, CISI.QRY, CISI.REL) as a retrieval set. */
export function convertCisi(src: string): RetrievalSetData {
  const corpus = readSmart(join(src, 'CISI.ALL')).map((r) => ({
    id: r.id,
    title: r.fields.T ?? '',
    text: r.fields.W ?? '',
  }))
  // A few queries are a citation (`.B`) besides their text; the text alone is the information need.
  const queries = readSmart(join(src, 'CISI.QRY')).map((r) => ({ id: r.id, text: r.fields.W ?? '' }))
  const pairs = new Map<string, Judgement>()
  for (const [query, doc] of readColumns(join(src, 'CISI.REL'))) {
    if (query && doc) pairs.set(`${query}\t${doc}`, { query, doc, score: 1 })
  }
  return { corpus, queries, qrels: { test: [...pairs.values()] } }
}

if (import.meta.main) {
  const [src, out] = process.argv.slice(2)
  if (!src || !out) {
    console.error('usage: bun scripts/retrieval-sets/cisi.ts <source dir> <out dir>')
    process.exit(2)
  }
  console.log(`cisi: ${writeBeirSet(out, convertCisi(src))}`)
}
