import { SECTION_MAX_CHARS, SECTION_MIN_CHARS } from './extract.sections.ts'
import type { Piece } from './extract.types.ts'

/** A table read from CSV or a spreadsheet, rendered so that each row reads on its own. */
export interface RenderedTable {
  pieces: Piece[]
  caption: string | null
  hasHeader: boolean
  rowCount: number
}

const NUMERIC = /^[-+]?(\d{1,3}(,\d{3})+|\d+)?(\.\d+)?([eE][-+]?\d+)?%?$/
const SNIFF_ROWS = 50

/**
 * Renders rows as lines a reader (and a retriever) can use without the grid: with a header row,
 * "header: value; header: value" (empty cells skipped), else "cell | cell". A first row holding a
 * single cell above a wider table is a caption (a title row, common in exported sheets). Rows are
 * grouped into pieces of bounded size titled with the row range they hold.
 */
export function renderTable(
  grid: string[][],
  name: string | null,
  maxChars = SECTION_MAX_CHARS,
): RenderedTable {
  let rows = grid.map((r) => r.map((c) => c.trim())).filter((r) => r.some((c) => c.length > 0))
  let caption: string | null = null
  const width = Math.max(0, ...rows.map((r) => r.length))
  const first = rows[0]
  if (first && rows.length > 2 && width > 1 && first.filter((c) => c).length === 1 && first[0]) {
    caption = first[0]
    rows = rows.slice(1)
  }
  const header = rows.length > 1 && looksLikeHeader(rows) ? rows[0]! : null
  const body = header ? rows.slice(1) : rows
  const lines = body.map((r) => (header ? labelled(header, r) : r.filter((c) => c).join(' | ')))
  const label = caption ?? name
  const pieces: Piece[] = []
  let start = 0
  let size = 0
  const close = (end: number) => {
    if (end <= start) return
    const range = end === start + 1 ? `row ${end}` : `rows ${start + 1}–${end}`
    const title = label ? `${label}, ${range}` : range.charAt(0).toUpperCase() + range.slice(1)
    const text = [label && start === 0 ? label : null, ...lines.slice(start, end)].filter((l) => l).join('\n')
    pieces.push({ title, text })
    start = end
    size = 0
  }
  lines.forEach((line, i) => {
    if (size > 0 && size + line.length + 1 > maxChars) close(i)
    size += line.length + 1
  })
  close(lines.length)
  // A short table is one piece titled by its caption or name alone.
  const only = pieces[0]
  if (pieces.length === 1 && only) only.title = label
  // A small tail joins the previous group when it fits, rather than standing alone.
  const last = pieces[pieces.length - 1]
  const prev = pieces[pieces.length - 2]
  if (
    last &&
    prev &&
    last.text.length < SECTION_MIN_CHARS &&
    prev.text.length + last.text.length < maxChars
  ) {
    prev.text += `\n${last.text}`
    prev.title = prev.title?.replace(/(rows? )(\d+)(–\d+)?$/, `rows $2–${lines.length}`) ?? null
    pieces.pop()
  }
  return { pieces, caption, hasHeader: header !== null, rowCount: body.length }
}

function labelled(header: string[], row: string[]): string {
  const pairs: string[] = []
  row.forEach((cell, i) => {
    if (!cell) return
    const h = header[i]
    pairs.push(h ? `${h}: ${cell}` : cell)
  })
  return pairs.join('; ')
}

/**
 * Decides whether the first row names the columns, after Python's csv.Sniffer: a column whose
 * values are all numbers (or all of one length) votes for a header when the first cell differs.
 * With no evidence either way, a first row of distinct, non-empty, non-numeric cells is taken as a
 * header, since most exported tables have one.
 */
export function looksLikeHeader(rows: string[][]): boolean {
  const head = rows[0] ?? []
  const sample = rows.slice(1, SNIFF_ROWS + 1)
  let votes = 0
  head.forEach((h, col) => {
    const values = sample.map((r) => r[col] ?? '').filter((v) => v.length > 0)
    if (values.length === 0 || !h) return
    if (values.every((v) => NUMERIC.test(v))) votes += NUMERIC.test(h) ? -1 : 1
    else if (values.every((v) => v.length === values[0]!.length))
      votes += h.length !== values[0]!.length ? 1 : -1
  })
  if (votes !== 0) return votes > 0
  const cells = head.filter((c) => c.length > 0)
  return (
    cells.length === head.length &&
    new Set(cells).size === cells.length &&
    !cells.some((c) => NUMERIC.test(c))
  )
}
