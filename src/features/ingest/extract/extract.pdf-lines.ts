// The lines of a PDF page as pdf.js lays its text out: each with where it sits on the page, its
// font and its cells. Paragraphs, running headers and headings are all judged from this geometry
// (extract.pdf-furniture.ts, extract.pdf-headings.ts, extract.pdf-layout.ts), since a PDF's text
// layer knows nothing of paragraphs: only glyph runs at positions.

/** The fields of a pdf.js text item this reader uses. */
export interface TextItem {
  str: string
  transform: number[]
  width: number
  height: number
  hasEOL: boolean
  fontName?: string
}

/** One line of a page's text layer, in pdf.js's reading order. */
export interface PdfLine {
  /** The glyph runs joined as pdf.js gives them. */
  text: string
  /** Left and right edges and baseline, in PDF units (y grows upwards). */
  x: number
  right: number
  y: number
  /** Font size, as the height of its tallest run. */
  height: number
  /** The font of most of its characters (pdf.js's name, stable within one document). */
  font: string
  /** The text split where a wide gap separates runs (tab stops, table cells, a right-aligned tag). */
  cells: string[]
  /** 1-based page number. */
  page: number
}

/** A gap wider than this many font sizes between two runs separates cells of a line. */
const CELL_GAP = 1.5

/** Groups a page's text items into lines: pdf.js marks the end of each line (`hasEOL`). */
export function pageLines(items: (TextItem | object)[], page: number): PdfLine[] {
  const lines: PdfLine[] = []
  let cur: Draft | null = null
  for (const item of items) {
    if (!('str' in item)) continue
    // Most producers end each line (hasEOL); some place a run elsewhere on the page without one.
    if (cur && item.str.trim() && cur.right > -Infinity && movedAway(cur, item)) {
      pushLine(lines, cur, page)
      cur = null
    }
    cur ??= { text: '', cells: [''], x: Infinity, right: -Infinity, y: 0, height: 0, fonts: new Map() }
    addRun(cur, item)
    if (item.hasEOL) {
      pushLine(lines, cur, page)
      cur = null
    }
  }
  if (cur) pushLine(lines, cur, page)
  return rejoinRuns(lines)
}

/** Lines back this far are looked at for a run that finishes one of them. */
const REJOIN_BACK = 3

/**
 * Puts back on its line a run that pdf.js gave as a line of its own after others: the right-hand
 * tag of a heading whose title wrapped ("A Study of the Fifth Blight, Vol." / "One" / then "Same as
 * in DAII" on the first line's baseline), or the text after a superscript. A run on the baseline of
 * one of the few lines before it, to their right, belongs to that line: in the same cell when it
 * follows closely, else as a new cell.
 */
function rejoinRuns(lines: PdfLine[]): PdfLine[] {
  const out: PdfLine[] = []
  for (const line of lines) {
    const size = (l: PdfLine) => Math.max(l.height, line.height, 1)
    const host = out
      .slice(-REJOIN_BACK)
      .reverse()
      .find((l) => Math.abs(l.y - line.y) < 0.3 * size(l) && line.x >= l.right - 0.5 * size(l))
    if (!host) {
      out.push(line)
      continue
    }
    const gap = line.x - host.right
    // A gap of a space or more is a space; less is the same word going on (after a superscript).
    const space = gap > 0.2 * size(host) ? ' ' : ''
    if (gap > CELL_GAP * size(host)) host.cells.push(...line.cells)
    else {
      const [first = '', ...rest] = line.cells
      host.cells[host.cells.length - 1] += space + first
      host.cells.push(...rest)
    }
    host.text += space + line.text.trim()
    host.right = Math.max(host.right, line.right)
  }
  return out
}

interface Draft {
  text: string
  cells: string[]
  x: number
  right: number
  y: number
  height: number
  fonts: Map<string, number>
}

/** Whether a run sits on another line than the draft: its baseline is more than half a font size away. */
function movedAway(line: Draft, item: TextItem): boolean {
  const height = item.height || Math.abs(item.transform[3] ?? 0)
  return Math.abs((item.transform[5] ?? 0) - line.y) > 0.5 * Math.max(height, line.height, 1)
}

function addRun(line: Draft, item: TextItem): void {
  const x = item.transform[4] ?? 0
  const height = item.height || Math.abs(item.transform[3] ?? 0)
  const size = Math.max(height, line.height, 1)
  const blank = item.str.trim() === ''
  // A wide blank run, or a wide jump between runs, is a tab stop: the next run starts a cell.
  const wideBlank = blank && item.width > CELL_GAP * size
  const jump = !blank && line.right > -Infinity && x - line.right > CELL_GAP * size
  if ((wideBlank || jump) && line.cells[line.cells.length - 1]!.trim()) line.cells.push('')
  line.text += item.str
  if (!wideBlank) line.cells[line.cells.length - 1] += item.str
  if (blank) return
  if (line.right === -Infinity) line.y = item.transform[5] ?? 0
  line.x = Math.min(line.x, x)
  line.right = Math.max(line.right, x + (item.width || 0))
  line.height = Math.max(line.height, height)
  const font = item.fontName ?? ''
  line.fonts.set(font, (line.fonts.get(font) ?? 0) + item.str.length)
}

function pushLine(lines: PdfLine[], d: Draft, page: number): void {
  if (!d.text.trim()) return
  let font = ''
  let most = -1
  for (const [f, n] of d.fonts) {
    if (n > most) {
      font = f
      most = n
    }
  }
  const cells = d.cells.map((c) => c.trim()).filter((c) => c.length > 0)
  lines.push({ text: d.text, x: d.x, right: d.right, y: d.y, height: d.height, font, cells, page })
}

/** The font that sets most of the characters of these lines (the body text's). */
export function bodyFont(lines: PdfLine[]): string {
  const chars = new Map<string, number>()
  for (const l of lines) chars.set(l.font, (chars.get(l.font) ?? 0) + l.text.length)
  let font = ''
  let most = -1
  for (const [f, n] of chars) {
    if (n > most) {
      font = f
      most = n
    }
  }
  return font
}

/**
 * The usual distance between the baselines of consecutive lines of a paragraph on these lines:
 * the most frequent downward step (to half a unit), or null when there are too few to tell.
 */
export function lineSpacing(lines: PdfLine[]): number | null {
  const counts = new Map<number, number>()
  for (let i = 1; i < lines.length; i++) {
    const a = lines[i - 1]!
    const b = lines[i]!
    const dy = a.y - b.y
    if (a.page !== b.page || dy <= 0 || dy > 3 * Math.max(a.height, b.height, 1)) continue
    const key = Math.round(dy * 2) / 2
    counts.set(key, (counts.get(key) ?? 0) + 1)
  }
  let best: number | null = null
  let most = 1
  for (const [dy, n] of counts) {
    if (n > most || (n === most && best !== null && dy < best)) {
      best = dy
      most = n
    }
  }
  return best
}
