// Converts SciFact (5,183 biomedical abstracts; claims as queries) from the CSV export of its
// original release (a zip holding corpus_train.csv, claims_train.csv and claims_validation.csv)
// to the BEIR layout: bun scripts/retrieval-sets/scifact.ts <scifact.zip> <out dir>.
// Its output is BEIR's SciFact: the same 1,109 queries (train and dev claims), the abstract's
// sentences trimmed and joined by spaces (the sampled abstracts match BEIR's byte for byte), and a claim's relevant documents the union of its evidence documents
// and its cited documents (qrels/train.tsv: 809 queries, 919 judgements; qrels/test.tsv, the dev
// claims: 300 queries, 339 judgements). Someone who has BEIR's own scifact.zip needs no converter.
import { readFileSync } from 'node:fs'
import { unzipSync } from 'fflate'
import Papa from 'papaparse'
import { type Judgement, type RetrievalSetData, writeBeirSet } from './beir'

/**
 * The strings of a NumPy array's printed form (`['First.' "It's" ...]`, as the CSV export wrote each
 * abstract): Python string literals, single- or double-quoted, with Python's escapes.
 */
export function pythonStrings(repr: string): string[] {
  const out: string[] = []
  for (const m of repr.matchAll(/'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"/gs)) {
    out.push(
      (m[1] ?? m[2] ?? '').replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)/gs, pythonEscape),
    )
  }
  return out
}

const SIMPLE: Record<string, string> = { n: '\n', t: '\t', r: '\r', '0': '\0' }

/** One Python escape's character (`\\n`, `\\x41`, `\\u00e9`, `\\'`...). */
function pythonEscape(_: string, e: string): string {
  if (e.length > 1) return String.fromCodePoint(Number.parseInt(e.slice(1), 16))
  return SIMPLE[e] ?? e
}

/** The rows of one CSV file of the zip, by header. */
function csv(files: Record<string, Uint8Array>, name: string): Record<string, string>[] {
  const bytes = files[name]
  if (!bytes) throw new Error(`${name} is not in the zip`)
  const parsed = Papa.parse<Record<string, string>>(new TextDecoder().decode(bytes), {
    header: true,
    skipEmptyLines: true,
  })
  if (parsed.errors.length) throw new Error(`${name}: ${parsed.errors[0]!.message}`)
  return parsed.data
}

/** The queries and judgements of a claims file: one query per claim id, evidence and cited documents relevant. */
function claims(rows: Record<string, string>[]) {
  const text = new Map<string, string>()
  const pairs = new Map<string, Judgement>()
  for (const r of rows) {
    const query = r.id!
    text.set(query, r.claim!)
    const docs = [
      ...(r.cited_doc_ids!.match(/\d+/g) ?? []),
      ...(r.evidence_doc_id ? [r.evidence_doc_id] : []),
    ]
    for (const doc of docs) pairs.set(`${query}\t${doc}`, { query, doc, score: 1 })
  }
  return { queries: [...text].map(([id, t]) => ({ id, text: t })), qrels: [...pairs.values()] }
}

/** SciFact from the bytes of its CSV export's zip, as BEIR's retrieval set. */
export function convertSciFact(zip: Uint8Array): RetrievalSetData {
  const files = unzipSync(zip)
  const corpus = csv(files, 'corpus_train.csv').map((r) => ({
    id: r.doc_id!,
    title: r.title!,
    // BEIR trims each sentence (some end in spaces and a line break) before joining them.
    text: pythonStrings(r.abstract!)
      .map((s) => s.trim())
      .join(' '),
  }))
  const train = claims(csv(files, 'claims_train.csv'))
  const test = claims(csv(files, 'claims_validation.csv'))
  return {
    corpus,
    queries: [...train.queries, ...test.queries],
    qrels: { train: train.qrels, test: test.qrels },
  }
}

if (import.meta.main) {
  const [zip, out] = process.argv.slice(2)
  if (!zip || !out) {
    console.error('usage: bun scripts/retrieval-sets/scifact.ts <scifact.zip> <out dir>')
    process.exit(2)
  }
  console.log(`scifact: ${writeBeirSet(out, convertSciFact(readFileSync(zip)))}`)
}
