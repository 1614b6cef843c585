import { type Column, cellNumber, empty, format } from './table-columns'
import type { Table, TablePiece, TableResult } from './table-rows'

// A computation for each value of a column ("What is the average body mass per species?"): the
// average, total, highest or lowest of a column of numbers over each value's rows, each value citing
// a row of it (the row holding the extreme, for the highest and lowest), and how many rows had no
// number, as the answer over the whole table says.

/** The computations made for each value. */
export type GroupOp = 'mean' | 'sum' | 'max' | 'min'

// Values given one by one; beyond, those of the most rows.
const GROUPS_MAX = 12
const WORD: Record<GroupOp, string> = { mean: 'average', sum: 'total', max: 'highest', min: 'lowest' }

interface Group {
  text: string
  /** The row cited: the one holding the extreme, or the first of the value's in the passage holding most of them. */
  row: number
  nums: number[]
  at: number
  /** Per passage: the value's first row there and how many it holds. */
  passages: Map<number, { row: number; count: number }>
}

/** `op` of `col` over the rows of each value of `group`, or null when fewer than two values have numbers. */
export function perGroup(
  table: Table,
  rows: number[],
  col: Column,
  group: Column,
  op: GroupOp,
): TableResult | null {
  const groups = new Map<string, Group>()
  let lacking = 0
  for (const i of rows) {
    const key = table.rows[i]!.cells[group.index]
    if (empty(key)) continue
    const n = cellNumber(table.rows[i]!.cells[col.index])
    if (n === null) {
      lacking++
      continue
    }
    const k = key!.toLowerCase()
    const g: Group = groups.get(k) ?? { text: key!, row: i, nums: [], at: n, passages: new Map() }
    groups.set(k, g)
    g.nums.push(n)
    const p = table.rows[i]!.passage
    const spot = g.passages.get(p)
    if (spot) spot.count++
    else g.passages.set(p, { row: i, count: 1 })
    if ((op === 'max' && n > g.at) || (op === 'min' && n < g.at)) {
      g.at = n
      g.row = i
    }
  }
  const all = [...groups.values()]
  if (all.length < 2) return null
  // An average or a total rests on all of a value's rows: it cites where most of them are.
  if (op === 'mean' || op === 'sum')
    for (const g of all) g.row = [...g.passages.values()].reduce((a, b) => (b.count > a.count ? b : a)).row
  const shown =
    all.length <= GROUPS_MAX
      ? all
      : [...all].sort((a, b) => b.nums.length - a.nums.length).slice(0, GROUPS_MAX)
  const more = all.length - shown.length
  const pieces: TablePiece[] = [{ text: `The ${WORD[op]} ${col.name} per ${group.name}:`, rows: [] }]
  shown.forEach((g, n) => {
    const rowsOf =
      op === 'mean' || op === 'sum' ? ` (${g.nums.length} ${g.nums.length === 1 ? 'row' : 'rows'})` : ''
    const last = n === shown.length - 1
    pieces.push({
      text: `${g.text} ${format(value(g, op))}${rowsOf}`,
      rows: [g.row],
      after: last ? `${more ? `, and ${more} more` : ''}${lacking ? '.' : ''}` : ',',
    })
  })
  if (lacking > 0)
    pieces.push({
      text: `The ${col.name} of ${lacking} of the ${rows.length} rows is missing or not a number`,
      rows: [],
    })
  return { pieces, short: null }
}

function value(g: Group, op: GroupOp): number {
  if (op === 'max' || op === 'min') return g.at
  const sum = g.nums.reduce((a, b) => a + b, 0)
  return op === 'mean' ? sum / g.nums.length : sum
}
