// Tables as a base holds them. Extraction renders each row of a CSV or a spreadsheet on a line of its
// own, "header: value; header: value" (empty cells left out), so the rows of a table are read back
// from its passages' text without keeping the grid anywhere else.

/** A passage of a table document: where a cited row is. */
export interface TablePassage {
  sectionId: string
  ordinal: number
  /** The title of its section. */
  title: string
  text: string
}

/** One row of a table: its cells by column (undefined where the row has none), its line and its passage. */
export interface TableLine {
  cells: (string | undefined)[]
  line: string
  /** Index of its passage in the list the table was read from. */
  passage: number
}

/** A table: its columns in order of first use and its rows, as far as they were read. */
export interface Table {
  columns: string[]
  rows: TableLine[]
}

/** The tables of a document, and whether rows were left unread (the caps of readTables). */
export interface ReadTables {
  tables: Table[]
  truncated: boolean
}

// A header: a short label without the separators of the rendering.
const HEADER = /^[^:;\n]{1,80}$/

/**
 * The cells of a row line, or null when the line is not a row: at least two "header: value" pairs
 * separated by "; ". A piece without ": " belongs to the value before it (a value holding "; ").
 */
export function rowCells(line: string): [string, string][] | null {
  const parts = line.split('; ')
  const cells: [string, string][] = []
  for (const part of parts) {
    const at = part.indexOf(': ')
    const header = at > 0 ? part.slice(0, at) : ''
    if (at > 0 && HEADER.test(header)) cells.push([header.trim(), part.slice(at + 2).trim()])
    else if (cells.length > 0) cells[cells.length - 1]![1] += `; ${part}`
    else return null
  }
  return cells.length >= 2 ? cells : null
}

/** Whether a passage's text is rows (at least half of its lines, and one), or holds a Markdown table. */
export function isRowsText(text: string): boolean {
  if (text.includes('|') && PIPE_SEPARATOR_IN.test(text)) return true
  // Most passages are prose: a row's separators are looked for before its lines are.
  const semi = text.indexOf('; ')
  if (semi < 0 || text.lastIndexOf(': ', semi) < 0) return false
  const lines = text.split('\n').filter((l) => l.trim().length > 0)
  const rows = lines.filter((l) => rowCells(l) !== null).length
  return rows > 0 && rows * 2 >= lines.length
}

/**
 * The tables of a document's passages, in order: consecutive rows sharing at least half of their
 * headers with the table so far are one table (a workbook's next sheet, with other headers, starts
 * another). At most `maxRows` rows are read.
 */
export function readTables(passages: TablePassage[], maxRows: number): ReadTables {
  const tables: Table[] = []
  let current: { table: Table; index: Map<string, number> } | null = null
  let read = 0
  for (const { line, passage } of withPipeRows(rowLines(passages))) {
    const cells = rowCells(line)
    if (!cells) continue
    if (read >= maxRows) return { tables, truncated: true }
    read++
    const shared = current ? cells.filter(([h]) => current!.index.has(h)).length : 0
    if (!current || shared * 2 < cells.length) {
      current = { table: { columns: [], rows: [] }, index: new Map() }
      tables.push(current.table)
    }
    const { table, index } = current
    const row: (string | undefined)[] = []
    for (const [header, value] of cells) {
      let col = index.get(header)
      if (col === undefined) {
        col = table.columns.length
        index.set(header, col)
        table.columns.push(header)
      }
      row[col] = value
    }
    table.rows.push({ cells: row, line, passage })
  }
  return { tables, truncated: false }
}

/**
 * The lines of a document's passages, each with the passage it starts in. Rows follow each other
 * without a sentence's end, so a long run of them is cut into sentences at "; " (sentences.ts), and a
 * passage may end in the middle of a row: a passage of the same section ending so ("...; island:
 * Dream;") goes on in the next one on the same line.
 */
function* rowLines(passages: TablePassage[]): Generator<{ line: string; passage: number }> {
  let line = ''
  let from = -1
  for (const [p, passage] of passages.entries()) {
    const joined = p > 0 && passages[p - 1]!.sectionId === passage.sectionId && /[;,]$/.test(line)
    const lines = passage.text.split('\n')
    for (const [i, text] of lines.entries()) {
      if (i === 0 && joined) {
        line += ` ${text.trim()}`
        continue
      }
      if (from >= 0 && line.trim()) yield { line: line.trim(), passage: from }
      line = text.trim()
      from = p
    }
  }
  if (from >= 0 && line.trim()) yield { line: line.trim(), passage: from }
}

// A Markdown table inside text: a line of cells between bars, a line of dashes under it ("---|---",
// "| :-- | --: |"), then its rows. Its rows are read as extraction renders a CSV's ("Item: Juicy
// Apples; Price: 1.99; # In stock: 739"), headed by the cells of the line above the dashes.
const PIPE_SEPARATOR = /^\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)+\|?$|^\|\s*:?-+:?\s*\|$/
const PIPE_SEPARATOR_IN = /^[ \t]*\|?[ \t]*:?-+:?[ \t]*\|[ \t|:-]*$/m

/** The cells of a line of a Markdown table. */
function pipeCells(line: string): string[] {
  return line
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split('|')
    .map((c) => c.trim())
}

/**
 * The lines of `lines` with each Markdown table's rows rendered as rows ("header: value; ...") and
 * its header and dashes left out; other lines as they are. A table without a header (blank header
 * cells) gives no rows: its cells are not named.
 */
function* withPipeRows(
  lines: Iterable<{ line: string; passage: number }>,
): Generator<{ line: string; passage: number }> {
  let header: string[] | null = null
  let held: { line: string; passage: number } | null = null
  for (const l of lines) {
    if (held && PIPE_SEPARATOR.test(l.line)) {
      header = pipeCells(held.line).map((h) => h.replace(/[:;]/g, ' ').trim())
      held = null
      continue
    }
    if (held) yield held
    held = null
    if (header && l.line.includes('|')) {
      const cells = pipeCells(l.line)
      const pairs = header.flatMap((h, i) => (h && cells[i] ? [`${h}: ${cells[i]}`] : []))
      if (pairs.length >= 2) yield { line: pairs.join('; '), passage: l.passage }
      continue
    }
    header = null
    // A line with a bar may head a table: it is kept until the next line tells.
    if (l.line.includes('|')) held = l
    else yield l
  }
  if (held) yield held
}

/** A piece of a table answer: a statement, the rows (indexes into the table) it cites, and what follows the citation. */
export interface TablePiece {
  text: string
  rows: number[]
  after?: string
}

/** A table answer: its pieces and the value it comes to (the short answer), if one. */
export interface TableResult {
  pieces: TablePiece[]
  short: string | null
}
