// Converts the ArguAna Counterargs corpus (Wachsmuth, Syed and Stein, ACL 2018: idebate.org debates,
// each point of a debate with its counter-argument) to the BEIR layout, as BEIR's ArguAna uses it: the
// query is a whole point (its title line and its paragraph, an argument pasted as the question) and
// its one relevant document is the counter-argument written against it. bun
// scripts/retrieval-sets/arguana.ts <dir with 02-extracted-arguments> <out dir>.
//
// Documents: every point and counter of the validation and test splits (the training split's 4,083
// debates' arguments are left out, to keep the set small enough to onboard in a bench run). Ids are
// BEIR's: split, theme, the initials of the debate's folder name, and the argument's file stem
// (`test-environment-aeghhgwpe-pro02a` a point, `...-pro02b` its counter); a document's title is the
// debate's folder name, its words spaced, and its text the file's, white space collapsed (a point's
// first line is its own title).
//
// Splits, decided before any query was read: the validation split's points are the tuning split
// (qrels/dev.tsv), the test split's points held out (qrels/test.tsv: BEIR's 1,406 ArguAna queries,
// less the few whose counter is missing). Only the held-out totals are ever to be looked at. A point is
// itself in the corpus, so the bench leaves a query's own id out of its ranking (BEIR's
// ignore_identical_ids).
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { type CorpusDoc, type Judgement, type RetrievalSetData, writeBeirSet } from './beir'

/** The corpus's split folders and the BEIR split each becomes (validation tunes, test is held out). */
const SPLITS = { validation: 'dev', test: 'test' } as const

const dirs = (path: string) =>
  readdirSync(path)
    .filter((n) => !n.startsWith('.') && statSync(join(path, n)).isDirectory())
    .sort()
const collapse = (s: string) => s.replace(/\s+/g, ' ').trim()

/** The id BEIR gives an argument: split, theme, the debate folder's initials, the file stem. */
export function arguanaId(split: string, theme: string, debate: string, file: string): string {
  const initials = debate
    .split('-')
    .filter(Boolean)
    .map((w) => w[0])
    .join('')
  return `${split}-${theme}-${initials}-${file.replace(/-(point|counter)\.txt$/, '')}`
}

/** The corpus's `02-extracted-arguments` folder as a retrieval set (see the header). */
export function convertArguana(src: string): RetrievalSetData {
  const corpus: CorpusDoc[] = []
  const queries: { id: string; text: string }[] = []
  const qrels: Record<string, Judgement[]> = {}
  const seen = new Set<string>()
  for (const [split, beirSplit] of Object.entries(SPLITS)) {
    const judged: Judgement[] = []
    for (const theme of dirs(join(src, split))) {
      for (const debate of dirs(join(src, split, theme))) {
        const title = debate.replace(/-+/g, ' ')
        for (const side of ['pro', 'con']) {
          const path = join(src, split, theme, debate, side)
          let files: string[]
          try {
            files = readdirSync(path).filter((f) => /^(pro|con)\d+[ab]-(point|counter)\.txt$/.test(f))
          } catch {
            continue
          }
          const ids = new Map<string, string>()
          for (const file of files.sort()) {
            const text = collapse(readFileSync(join(path, file), 'utf8'))
            if (!text) continue
            let id = arguanaId(split, theme, debate, file)
            // Two debates of a theme with the same initials: the later one's ids take a suffix.
            while (seen.has(id)) id = `${id}x`
            seen.add(id)
            ids.set(file, id)
            corpus.push({ id, title, text })
            if (file.endsWith('-point.txt')) queries.push({ id, text })
          }
          for (const [file, query] of ids) {
            const doc = ids.get(file.replace(/a-point\.txt$/, 'b-counter.txt'))
            if (file.endsWith('-point.txt') && doc) judged.push({ query, doc, score: 1 })
          }
        }
      }
    }
    qrels[beirSplit] = judged
  }
  return { corpus, queries, qrels }
}

if (import.meta.main) {
  const [src, out] = process.argv.slice(2)
  if (!src || !out) {
    console.error('usage: bun scripts/retrieval-sets/arguana.ts <02-extracted-arguments dir> <out dir>')
    process.exit(2)
  }
  console.log(`arguana: ${writeBeirSet(out, convertArguana(src))}`)
}
