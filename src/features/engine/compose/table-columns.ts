import { contentTerms, type Token } from '../text/index'
import type { Table } from './table-rows'

// A table's columns as a question meets them: the words of their headers ("body_mass_g": body, mass),
// whether they hold numbers or yes/no values, and their distinct values (a question may name one:
// "How many Adelie penguins ...").

/** What a question needs to know of one column. */
export interface Column {
  index: number
  name: string
  /** Index terms of the header's words. */
  terms: Set<string>
  /** Rows holding a value, and those of them that are numbers. */
  filled: number
  numbers: number
  /** Distinct values (lower case) with the first row holding each and their count, up to MAX_VALUES. */
  values: Map<string, { row: number; count: number; text: string }>
  /** Whether its values are two-valued truth (0/1, yes/no, true/false). */
  boolean: boolean
}

// Distinct values kept per column: enough for categories and names, bounded for free text.
const MAX_VALUES = 5_000
const TRUTH = new Set(['0', '1', 'yes', 'no', 'true', 'false', 'y', 'n'])

/** A number in a cell ("6,300", "$54.35", "23.5%"), or null. */
export function cellNumber(cell: string | undefined): number | null {
  if (cell === undefined) return null
  const m = /^[-+]?[$€£]?\s*(\d{1,3}(?:,\d{3})+|\d+)?(\.\d+)?\s*%?$/.exec(cell.trim())
  if (!m || (m[1] === undefined && m[2] === undefined)) return null
  const n = Number(`${(m[1] ?? '0').replace(/,/g, '')}${m[2] ?? ''}`)
  return cell.trim().startsWith('-') ? -n : n
}

// Cells that stand for no value in exported tables.
const EMPTY = /^(?:|na|n\/a|nan|null|none|-)$/i

/** Whether a cell holds no value. */
export function empty(cell: string | undefined): boolean {
  return cell === undefined || EMPTY.test(cell.trim())
}

/** Whether a truth value is true. */
export function truthy(cell: string | undefined): boolean {
  return cell !== undefined && /^(?:1|yes|true|y)$/i.test(cell.trim())
}

/** The words of a header as index terms: "body_mass_g" reads body, mass; "StanleyCups" Stanley, Cups. */
export function headerTerms(header: string): Set<string> {
  return new Set(contentTerms(header.replace(/[_\W]+/g, ' ').replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2')))
}

/** The columns of a table, with their values counted over its rows. */
export function tableColumns(table: Table): Column[] {
  const columns: Column[] = table.columns.map((name, index) => ({
    index,
    name,
    terms: headerTerms(name),
    filled: 0,
    numbers: 0,
    values: new Map(),
    boolean: false,
  }))
  table.rows.forEach((row, r) => {
    for (const c of columns) {
      const cell = row.cells[c.index]
      if (empty(cell)) continue
      c.filled++
      if (cellNumber(cell) !== null) c.numbers++
      const key = cell!.toLowerCase()
      const seen = c.values.get(key)
      if (seen) seen.count++
      else if (c.values.size < MAX_VALUES) c.values.set(key, { row: r, count: 1, text: cell! })
    }
  })
  for (const c of columns)
    c.boolean = c.values.size <= 2 && c.values.size > 0 && [...c.values.keys()].every((v) => TRUTH.has(v))
  return columns
}

/** Whether most of a column's values are numbers (and it is not yes/no). */
export function isNumeric(c: Column): boolean {
  return !c.boolean && c.filled > 0 && c.numbers >= 0.9 * c.filled
}

/** The question's words a column's header holds (indexes into `words`). */
export function headerMatch(c: Column, words: Token[]): number[] {
  const out: number[] = []
  words.forEach((w, i) => {
    if (!w.stop && c.terms.has(w.term)) out.push(i)
  })
  return out
}

/** The column a table's rows are named by: its first that holds neither numbers nor yes/no. */
export function labelColumn(columns: Column[]): Column {
  return columns.find((c) => !isNumeric(c) && !c.boolean) ?? columns[0]!
}

/** The column scoring highest (first on ties), or null when none scores above 0. */
export function best(columns: Column[], score: (c: Column) => number): Column | null {
  let top: Column | null = null
  let s = 0
  for (const c of columns) {
    const v = score(c)
    if (v > s) {
      top = c
      s = v
    }
  }
  return top
}

/** A value the question names: its column and the value as the table spells it. */
export interface NamedValue {
  column: Column
  key: string
  text: string
}

/**
 * Values of the table's columns the question names as whole words ("Adelie", "Jane Smith"): not
 * numbers, truth values or function words, which a question uses for other things. Longest first.
 */
export function namedValues(columns: Column[], words: Token[]): NamedValue[] {
  const asked = ` ${words.map((w) => w.norm).join(' ')} `
  const out: NamedValue[] = []
  for (const c of columns) {
    if (isNumeric(c) || c.boolean) continue
    for (const [key, v] of c.values) {
      const norm = normPhrase(key)
      if (norm.length < 2 || (!norm.includes(' ') && words.some((w) => w.norm === norm && w.stop))) continue
      if (asked.includes(` ${norm} `)) out.push({ column: c, key, text: v.text })
    }
  }
  return out.sort((a, b) => b.key.length - a.key.length)
}

/** A value's words as the question's tokens spell them (lower case, single spaces, no punctuation). */
function normPhrase(value: string): string {
  return value
    .toLowerCase()
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
}

/** A number as an answer gives it: at most two decimals, no trailing zeros. */
export function format(n: number): string {
  return String(Math.round(n * 100) / 100)
}
