import {
  best,
  type Column,
  cellNumber,
  empty,
  format,
  headerMatch,
  isNumeric,
  labelColumn,
  namedValues,
  tableColumns,
  truthy,
} from './table-columns'
import { type GroupOp, perGroup } from './table-groups'
import type { TableQuestion } from './table-question'
import type { Table, TablePiece, TableResult } from './table-rows'

// Answers computed from a table's rows: each statement cites the rows it rests on. Where the asked
// computation does not apply (no column of numbers to average), the answer says what the rows hold.

// Values named one by one in a list; beyond, the most frequent.
const LIST_MAX = 12
// The computations a question may ask for each value of a column.
const GROUP_OPS = new Set(['mean', 'sum', 'max', 'min'])
// Rows cited for a statement about many (the rows lacking a value, an average).
const CITE_MAX = 3

/**
 * The answer `q` gets from `table` (its columns as the caller counted them, if it did), or null when
 * the table does not answer it.
 */
export function answerFromTable(
  table: Table,
  q: TableQuestion,
  columns = tableColumns(table),
): TableResult | null {
  const words = q.tokens
  const matched = columns.map((c) => headerMatch(c, words))
  const targetOf = (c: Column) => headerMatch(c, q.target).length
  // What is listed or counted: the column the question's "which X" names (the most of its words,
  // then of the question's), if any.
  const target = best(columns, (c) => (targetOf(c) > 0 ? targetOf(c) * 100 + matched[c.index]!.length : 0))
  const filter = namedValues(columns, words).find((v) => v.column !== target) ?? null
  const rows = table.rows
    .map((_, i) => i)
    .filter((i) => !filter || keyOf(table, i, filter.column) === filter.key)
  const within = filter ? `Of the rows with ${filter.column.name} ${filter.text}, ` : ''
  const numeric = best(columns, (c) => (isNumeric(c) && c !== target ? matched[c.index]!.length : 0))
  const named = best(columns, (c) => matched[c.index]!.length)
  // "The average body mass per species": the computation over each value's rows.
  const group = best(columns, (c) => (c !== numeric && !isNumeric(c) ? headerMatch(c, q.group).length : 0))
  const grouped =
    group && numeric && GROUP_OPS.has(q.op) && perGroup(table, rows, numeric, group, q.op as GroupOp)
  if (grouped) return grouped
  switch (q.op) {
    case 'list':
      return listing(table, rows, target ?? labelColumn(columns), target ? phrase(q, target) : null, within)
    case 'count': {
      const truth = best(columns, (c) => (c.boolean ? matched[c.index]!.length : 0))
      if (truth) {
        const yes = rows.filter((i) => truthy(table.rows[i]!.cells[truth.index]))
        const value = table.rows[yes[0] ?? 0]?.cells[truth.index] ?? 'true'
        return one(
          `${yes.length} of the ${rows.length} rows have ${truth.name} ${value}`,
          yes.slice(0, 1),
          `${yes.length}`,
        )
      }
      // "How many Stanley Cups have the Blues won?": the number the rows of the value named hold.
      const counted = target && isNumeric(target) ? target : numeric
      if (filter && counted && rows.length > 0 && rows.length <= CITE_MAX)
        return valuesOf(table, rows, filter.text, counted)
      if (filter) {
        const of = `${rows.length} of the ${table.rows.length} rows have ${filter.column.name} ${filter.text}`
        return one(of, rows.slice(0, 1), `${rows.length}`)
      }
      if (target && !isNumeric(target)) return listing(table, rows, target, phrase(q, target), within)
      return one(`The table has ${table.rows.length} rows`, [0], `${table.rows.length}`)
    }
    case 'missing': {
      if (!named) return null
      const lack = rows.filter((i) => empty(table.rows[i]!.cells[named.index]))
      const text = `${within}${within ? 't' : 'T'}he ${named.name} is missing in ${lack.length} of the ${rows.length} rows`
      return one(text, lack.slice(0, CITE_MAX), `${lack.length}`)
    }
    case 'max':
    case 'min':
      if (!numeric) return named ? notNumbers(table, rows, named) : null
      return extreme(table, rows, numeric, q.op, target, within)
    case 'mean':
    case 'sum':
      if (!numeric) return named ? notNumbers(table, rows, named) : null
      return aggregate(table, rows, numeric, q.op, within)
    case 'lookup': {
      if (!filter || rows.length === 0) return null
      const asked = best(columns, (c) => (c !== filter.column ? matched[c.index]!.length : 0))
      if (asked) return valuesOf(table, rows, filter.text, asked)
      return {
        pieces: rows.slice(0, CITE_MAX).map((i) => ({ text: table.rows[i]!.line, rows: [i] })),
        short: null,
      }
    }
  }
}

/** The cells of `col` in the first rows of a value (`named`), each citing its row. */
function valuesOf(table: Table, rows: number[], named: string, col: Column): TableResult {
  const shown = rows.slice(0, CITE_MAX)
  const cells = shown.map((i) => table.rows[i]!.cells[col.index] ?? '(none)')
  const pieces = shown.map((i, n) => ({ text: `${named}: ${col.name} ${cells[n]}`, rows: [i] }))
  return { pieces, short: cells.length === 1 ? cells[0]! : null }
}

/**
 * The values of `col` among `rows`, all of them or the most frequent, each citing the passage that
 * holds the most of its rows (the first of them on ties) by its first row there: a value whose
 * first rows end a passage of other values is cited where its rows are.
 */
function listing(
  table: Table,
  rows: number[],
  col: Column,
  noun: string | null,
  within: string,
): TableResult {
  const values = new Map<string, { text: string; row: number; count: number; at: Map<number, Spot> }>()
  for (const i of rows) {
    const cell = table.rows[i]!.cells[col.index]
    if (empty(cell)) continue
    const key = cell!.toLowerCase()
    const p = table.rows[i]!.passage
    const seen = values.get(key) ?? { text: cell!, row: i, count: 0, at: new Map<number, Spot>() }
    values.set(key, seen)
    seen.count++
    const spot = seen.at.get(p)
    if (spot) spot.count++
    else seen.at.set(p, { row: i, count: 1 })
  }
  for (const v of values.values()) {
    let top: Spot | null = null
    for (const spot of v.at.values()) if (!top || spot.count > top.count) top = spot
    v.row = top!.row
  }
  const all = [...values.values()]
  const what = noun ?? `${col.name} values`
  const head = `${within}${within ? 't' : 'T'}he table lists ${all.length} ${what}`
  if (all.length === 0) return one(`${head}`, rows.slice(0, 1), '0')
  const shown = all.length <= LIST_MAX ? all : [...all].sort((a, b) => b.count - a.count).slice(0, LIST_MAX)
  const counted = shown.some((v) => v.count > 1)
  const more = all.length > LIST_MAX ? all.length - LIST_MAX : 0
  const pieces: TablePiece[] = [{ text: `${head}${more ? ', the most frequent' : ''}:`, rows: [] }]
  shown.forEach((v, n) => {
    const rowsOf = counted ? ` (${v.count} ${v.count === 1 ? 'row' : 'rows'})` : ''
    const last = n === shown.length - 1
    pieces.push({
      text: `${v.text}${rowsOf}`,
      rows: [v.row],
      after: last ? (more ? `, and ${more} more` : '') : ',',
    })
  })
  return { pieces, short: shown.map((v) => v.text).join(', ') }
}

/** A passage's rows of one value: the first of them and how many. */
interface Spot {
  row: number
  count: number
}

/** The row holding the largest or smallest number of `col`, named by `label` when the question asks "which". */
function extreme(
  table: Table,
  rows: number[],
  col: Column,
  op: 'max' | 'min',
  label: Column | null,
  within: string,
): TableResult {
  let top: number | null = null
  let at: number[] = []
  for (const i of rows) {
    const n = cellNumber(table.rows[i]!.cells[col.index])
    if (n === null) continue
    if (top === null || (op === 'max' ? n > top : n < top)) {
      top = n
      at = [i]
    } else if (n === top) at.push(i)
  }
  if (top === null) return notNumbers(table, rows, col)
  const word = op === 'max' ? 'highest' : 'lowest'
  const row = table.rows[at[0]!]!
  const value = row.cells[col.index]!
  const ties = at.length > 1 ? ` (${at.length} rows have it)` : ''
  const name = label && label !== col ? row.cells[label.index] : undefined
  const main =
    name !== undefined
      ? one(`${within}${name} has the ${word} ${col.name}: ${value}${ties}`, at.slice(0, 1), name)
      : one(
          `${within}${within ? 't' : 'T'}he ${word} ${col.name} is ${value}${ties}: ${row.line}`,
          at.slice(0, 1),
          value,
        )
  return withMissing(main, table, rows, col)
}

/** A result followed, when some rows lack the column it computed over, by how many. */
function withMissing(result: TableResult, table: Table, rows: number[], col: Column): TableResult {
  const lacking = rows.filter((i) => cellNumber(table.rows[i]!.cells[col.index]) === null).length
  if (lacking === 0) return result
  const last = result.pieces[result.pieces.length - 1]!
  last.after = `${last.after ?? ''}.`
  const what = rows.length === lacking ? 'every row' : `${lacking} of the ${rows.length} rows`
  result.pieces.push({ text: `The ${col.name} of ${what} is missing or not a number`, rows: [] })
  return result
}

/** The average or total of the numbers of `col` among `rows`, citing the first rows. */
function aggregate(
  table: Table,
  rows: number[],
  col: Column,
  op: 'mean' | 'sum',
  within: string,
): TableResult {
  let sum = 0
  const used: number[] = []
  for (const i of rows) {
    const n = cellNumber(table.rows[i]!.cells[col.index])
    if (n === null) continue
    sum += n
    used.push(i)
  }
  if (used.length === 0) return notNumbers(table, rows, col)
  const value = format(op === 'mean' ? sum / used.length : sum)
  const what = op === 'mean' ? `average ${col.name}` : `total of ${col.name}`
  const text = `${within}${within ? 't' : 'T'}he ${what} is ${value} over ${used.length} rows`
  return withMissing(one(text, firstPerPassage(table, used), value), table, rows, col)
}

/** What the rows hold where a number was asked of a column without numbers. */
function notNumbers(table: Table, rows: number[], col: Column): TableResult {
  const listed = listing(table, rows, col, null, '')
  listed.pieces[0]!.text =
    `The ${col.name} column holds no numbers: ${listed.pieces[0]!.text.charAt(0).toLowerCase()}${listed.pieces[0]!.text.slice(1)}`
  return { pieces: listed.pieces, short: null }
}

/**
 * What a question calls the things it lists: its words after "which" up to the last the column's
 * header holds ("which penguin species": "penguin species"; "which passenger classes appear":
 * "passenger classes").
 */
function phrase(q: TableQuestion, col: Column): string | null {
  const last = q.target.findLastIndex((t) => col.terms.has(t.term))
  return last >= 0
    ? q.target
        .slice(0, last + 1)
        .map((t) => t.norm)
        .join(' ')
    : null
}

function one(text: string, rows: number[], short: string | null): TableResult {
  return { pieces: [{ text, rows }], short }
}

function keyOf(table: Table, row: number, col: Column): string | undefined {
  return table.rows[row]!.cells[col.index]?.toLowerCase()
}

/** The first row of each passage among `rows`, at most CITE_MAX. */
function firstPerPassage(table: Table, rows: number[]): number[] {
  const seen = new Set<number>()
  const out: number[] = []
  for (const i of rows) {
    const p = table.rows[i]!.passage
    if (seen.has(p)) continue
    seen.add(p)
    out.push(i)
    if (out.length === CITE_MAX) break
  }
  return out
}
