import type { CartEntry } from '../cart/index'
import type { SectionRef } from '../rag/index'
import type { RankedPassage } from '../rank/index'
import { contentTerms } from '../text/index'
import { answerFromTable } from './table-answer'
import { headerMatch, namedValues, tableColumns } from './table-columns'
import { type TableQuestion, tableQuestion } from './table-question'
import { isRowsText, readTables, type Table, type TablePassage, type TableResult } from './table-rows'

// Questions about a table's values (which, how many, list, the largest, smallest, average, total)
// are answered from its rows, computed, not quoted: no sentence of a table says "344 rows". The table
// is one the search found rows of, or one the question names by its file ("the penguins dataset").
// Reading is bounded: at most MAX_ROWS rows and MAX_CHARS of text of one document.

/** A document of a base that holds a table. */
export interface TableDocument {
  documentId: string
  filename: string
  title: string
}

/** Where table questions read: the base's table files, and a document's passages in reading order. */
export interface TableReader {
  /** The base's documents whose kind is a table (CSV, TSV, spreadsheets). */
  documents(baseId: string): TableDocument[]
  /** A document's passages in reading order, until `maxChars` of their text. */
  passages(baseId: string, documentId: string, maxChars: number): TablePassage[]
}

/** A table answer: its text with [n] citations, its short answer, and the passages it cites, in order. */
export interface TableAnswer {
  answer: string
  short: string | null
  cited: { passage: TablePassage; document: TableDocument }[]
}

/** Rows read of one table document at most, and characters of its text. */
export const MAX_ROWS = 100_000
export const MAX_CHARS = 16_000_000
// Text read of a candidate to see its columns before choosing one.
const HEAD_CHARS = 4_000
// Candidates whose heads are read.
const MAX_CANDIDATES = 8
// The file kinds extraction renders as rows.
export const TABLE_FILE = /\.(?:csv|tsv|xlsx|xlsm|xls|ods)$/i
// Words of file names that name no table in particular.
const GENERIC =
  /^(?:data|dataset|datasets|table|tables|sheet|sheets|file|csv|tsv|xlsx|xls|row|rows|sample|example|test|export|final|copy|list|report|page|pages)$/

/**
 * The answer a table of the base gives the question, or null when the question asks nothing of a
 * table, or no table of the base is the one it asks about (found by the search among `pool`, the
 * ranked candidates, or named by its file; among `pinned` documents when given), or the rows do
 * not answer it.
 */
export function answerTable(
  reader: TableReader,
  baseId: string,
  question: string,
  pool: RankedPassage<SectionRef>[],
  k: number,
  pinned?: string[],
  limits: { rows: number; chars: number } = { rows: MAX_ROWS, chars: MAX_CHARS },
): TableAnswer | null {
  const q = tableQuestion(question)
  if (!q) return null
  // A question pinned to some documents asks only their tables.
  const found = candidates(reader, baseId, q, pool).filter(
    (c) => !pinned?.length || pinned.includes(c.documentId),
  )
  if (found.length === 0) return null
  // Each candidate is judged on its first rows: how many of the question's words its headers hold.
  let chosen: { doc: Candidate; score: number } | null = null
  for (const doc of found.slice(0, MAX_CANDIDATES)) {
    const head = readTables(reader.passages(baseId, doc.documentId, HEAD_CHARS), 200).tables
    const columns = Math.max(0, ...head.map((t) => matchedWords(t, q)))
    // A table found by the search answers when its headers hold a word of the question, or the
    // question names a value of it (a lookup); one named by its file, when the question says more
    // of it than its name (its headers, a value, or that it is a table: "in the dataset").
    const ok = doc.named > 0 || (doc.rank < 3 && (columns > 0 || q.op === 'lookup'))
    const score = 3 * doc.named + columns + (doc.rank < 3 ? 2 : doc.rank < Infinity ? 1 : 0)
    if (ok && (!chosen || score > chosen.score)) chosen = { doc, score }
  }
  if (!chosen) return null
  const passages = reader.passages(baseId, chosen.doc.documentId, limits.chars)
  const read = readTables(passages, limits.rows)
  const table = [...read.tables].sort(
    (a, b) => matchedWords(b, q) - matchedWords(a, q) || b.rows.length - a.rows.length,
  )[0]
  if (!table) return null
  const columns = tableColumns(table)
  const specific = matchedWords(table, q) > 0 || namedValues(columns, q.tokens).length > 0 || q.namesTable
  if (chosen.doc.named > 0 && chosen.doc.rank >= 3 && !specific) return null
  const result = answerFromTable(table, q, columns)
  if (!result) return null
  // Rows were left unread when either cap was met.
  const cut = read.truncated || passages.reduce((n, p) => n + p.text.length, 0) >= limits.chars
  return compose(result, table, passages, chosen.doc, cut, k)
}

interface Candidate extends TableDocument {
  /** Distinctive words of its file name or title the question holds. */
  named: number
  /** Rank of its best passage among the search's candidates (Infinity when not found). */
  rank: number
}

/** The table documents the question may be about: those the search found rows of, and the base's table files. */
function candidates(
  reader: TableReader,
  baseId: string,
  q: TableQuestion,
  pool: RankedPassage<SectionRef>[],
): Candidate[] {
  const byId = new Map<string, Candidate>()
  pool.forEach((p, rank) => {
    if (byId.has(p.ref.documentId) || !isRowsText(p.text.slice(p.start, p.end))) return
    const { documentId, filename, title } = p.ref
    byId.set(documentId, { documentId, filename, title, named: 0, rank })
  })
  for (const d of reader.documents(baseId))
    if (!byId.has(d.documentId)) byId.set(d.documentId, { ...d, named: 0, rank: Number.POSITIVE_INFINITY })
  const all = [...byId.values()]
  // A word names a table when no other candidate's name holds it ("penguins", not "seaborn-data").
  const names = all.map((c) => nameTerms(c))
  const asked = new Set(q.tokens.filter((t) => !t.stop).map((t) => t.term))
  all.forEach((c, i) => {
    c.named = [...names[i]!].filter((t) => asked.has(t) && names.every((n, j) => j === i || !n.has(t))).length
  })
  return all
    .filter((c) => c.named > 0 || c.rank < Number.POSITIVE_INFINITY)
    .sort((a, b) => b.named - a.named || a.rank - b.rank)
}

/** The words of a document's file name and title, as index terms, without those naming no table. */
function nameTerms(d: TableDocument): Set<string> {
  const base = d.filename.replace(/^.*[\\/]/, '').replace(/\.[^.]+$/, '')
  const words = `${base} ${d.title === d.filename ? '' : d.title}`
    .replace(/[_\W]+/g, ' ')
    .replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2')
  return new Set(contentTerms(words).filter((t) => t.length > 2 && !/^\d/.test(t) && !GENERIC.test(t)))
}

/** How many of the question's words a table's headers hold. */
function matchedWords(table: Table, q: TableQuestion): number {
  const words = new Set<number>()
  for (const c of tableColumns({ columns: table.columns, rows: [] }))
    for (const i of headerMatch(c, q.tokens)) words.add(i)
  return words.size
}

/** The answer's text: each piece with the numbers of the passages of its rows, at most `k` of them. */
function compose(
  result: TableResult,
  table: Table,
  passages: TablePassage[],
  document: TableDocument,
  truncated: boolean,
  k: number,
): TableAnswer {
  const order: number[] = []
  const parts = result.pieces.map((piece) => {
    const marks: string[] = []
    for (const r of piece.rows) {
      const p = table.rows[r]!.passage
      let n = order.indexOf(p)
      if (n < 0 && order.length < k) n = order.push(p) - 1
      if (n >= 0 && !marks.includes(`[${n + 1}]`)) marks.push(`[${n + 1}]`)
    }
    return `${piece.text}${marks.length ? ` ${marks.join(' ')}` : ''}${piece.after ?? ''}`
  })
  const text = parts.join(' ').trim()
  let answer = /[.!?]$/.test(text) ? text : `${text}.`
  if (truncated) answer += ` Only the first ${table.rows.length} rows of the table were read.`
  return { answer, short: result.short, cited: order.map((p) => ({ passage: passages[p]!, document })) }
}

// The table files of each list of warm cartridges (a base's list is kept while the base is unchanged).
const cartDocuments = new WeakMap<CartEntry<SectionRef>[], TableDocument[]>()

/** A reader over the cart strategy's warm cartridges: a section's passages from its cartridge's text. */
export function cartTables(entries: CartEntry<SectionRef>[]): TableReader {
  const sectionsOf = (documentId: string) => entries.filter((e) => e.ref.documentId === documentId)
  return {
    documents() {
      let docs = cartDocuments.get(entries)
      if (!docs) {
        const seen = new Map<string, TableDocument>()
        for (const { ref } of entries)
          if (TABLE_FILE.test(ref.filename) && !seen.has(ref.documentId))
            seen.set(ref.documentId, { documentId: ref.documentId, filename: ref.filename, title: ref.title })
        docs = [...seen.values()]
        cartDocuments.set(entries, docs)
      }
      return docs
    },
    passages(_baseId, documentId, maxChars) {
      const out: TablePassage[] = []
      let chars = 0
      for (const { ref, cart } of inReadingOrder(sectionsOf(documentId))) {
        for (let p = 0; p * 2 < cart.passages.length; p++) {
          const start = cart.sents[2 * cart.passages[2 * p]!]!
          const end = cart.sents[2 * cart.passages[2 * p + 1]! + 1]!
          if (chars >= maxChars) return out
          chars += end - start
          out.push({
            sectionId: ref.sectionId,
            ordinal: p,
            title: ref.title,
            text: cart.text.slice(start, end),
          })
        }
      }
      return out
    },
  }
}

/** Sections in reading order: by the first row their title names ("Rows 155–307"), else as listed. */
export function inReadingOrder<T extends { ref: { title: string } }>(sections: T[]): T[] {
  const first = (t: string) => Number(/\brows? (\d+)/i.exec(t)?.[1] ?? Number.NaN)
  return sections
    .map((s, i) => ({ s, i, n: first(s.ref.title) }))
    .sort((a, b) => (Number.isNaN(a.n) || Number.isNaN(b.n) ? a.i - b.i : a.n - b.n || a.i - b.i))
    .map((x) => x.s)
}
