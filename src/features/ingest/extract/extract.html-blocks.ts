import { Parser } from 'htmlparser2'
import { collapseSpaces } from './extract.text-util.ts'
import type { Piece } from './extract.types.ts'

/** How `htmlToPieces` reads a page. */
export interface HtmlReadOptions {
  /** Treat a short, all-bold block outside tables as a heading (SEC filings, Word exports). */
  boldHeadings?: boolean
}

/** The readable text of an HTML page, cut into pieces at its headings. */
export interface HtmlText {
  title: string | null
  pieces: Piece[]
  headingCount: number
}

// Never shown to a reader: code, styling, hidden XBRL facts, site navigation, form widgets.
const SKIP = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'canvas',
  'iframe',
  'object',
  'embed',
  'select',
  'button',
  'nav',
  'ix:header',
])
const BLOCK = new Set(
  (
    'address article aside blockquote body caption center dd details dialog div dl dt fieldset figcaption ' +
    'figure footer form h1 h2 h3 h4 h5 h6 header hgroup hr html legend li main ol p pre section summary ' +
    'table tbody thead tfoot tr ul option'
  ).split(' '),
)
const HEADING = /^h([1-6])$/
const BOLD_STYLE = /font-weight\s*:\s*(bold|[6-9]00)/i
const HIDDEN_STYLE = /display\s*:\s*none/i
const LINE_BREAK = '\u2028'
const MAX_BOLD_HEADING = 120

const WEAK_HEADING = 7

/**
 * Nesting kept by the walker. Browsers stop nesting at a similar depth (Chromium's parser at 512)
 * and no real page is anywhere near it.
 */
export const HTML_MAX_DEPTH = 512

interface Block {
  text: string
  title: string
  /** 1..6 for h1..h6, WEAK_HEADING for a bold line, 0 for a paragraph. */
  heading: number
  /** List items and table rows follow each other on single lines, not as paragraphs. */
  tight: boolean
}

interface Open {
  name: string
  skip: boolean
  bold: boolean
}

/** An open HTML table row as the walker fills it: whether a cell had text, and a separator owed before the next. */
interface TrState {
  hasContent: boolean
  pendingSep: boolean
}

/**
 * Walks HTML with a streaming parser and keeps what a reader sees: block elements become
 * paragraphs, list items get bullets, table rows become "cell | cell" lines (empty cells dropped),
 * `<pre>` keeps its lines, headings start a new piece. Scripts, styles and hidden parts are dropped.
 */
export function htmlToPieces(html: string, options: HtmlReadOptions = {}): HtmlText {
  const walker = new Walker()
  // Elements deeper than HTML_MAX_DEPTH only pass their text on: a page of a million nested
  // <div>s then costs what a flat one does. The parser pairs every open with a close (implied
  // ones included), so counting the overflow is enough to know which closes to skip.
  let depth = 0
  let overflow = 0
  const parser = new Parser(
    {
      onopentag: (name, attrs) => {
        if (depth >= HTML_MAX_DEPTH) overflow++
        else {
          depth++
          walker.open(name, attrs)
        }
      },
      ontext: (text) => walker.text(text),
      onclosetag: (name) => {
        if (overflow > 0) overflow--
        else {
          depth--
          walker.close(name)
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, recognizeSelfClosing: true },
  )
  parser.write(html)
  parser.end()
  walker.flush(walker.preDepth > 0)
  return { title: walker.title, ...toPieces(walker.blocks, options.boldHeadings === true) }
}

/** The state of one walk: open elements, the line being built and the blocks found so far. */
class Walker {
  readonly blocks: Block[] = []
  title: string | null = null
  preDepth = 0
  private readonly stack: Open[] = []
  private readonly lists: { ordered: boolean; n: number }[] = []
  private readonly rows: TrState[] = []
  private skipDepth = 0
  private boldDepth = 0
  private tableDepth = 0
  private cellDepth = 0
  private headingLevel = 0
  private inTitle = false
  private titleText = ''
  private buf = ''
  private boldChars = 0
  private prefix = ''

  open(name: string, attrs: Record<string, string>): void {
    const style = attrs.style ?? ''
    const skip = SKIP.has(name) || HIDDEN_STYLE.test(style) || isBackLink(name, attrs.href)
    const bold = name === 'b' || name === 'strong' || BOLD_STYLE.test(style)
    this.stack.push({ name, skip, bold })
    if (skip) this.skipDepth++
    if (bold) this.boldDepth++
    if (this.skipDepth > 0) return
    if (name === 'title') this.inTitle = true
    else if (name === 'br') this.buf += LINE_BREAK
    else if (name === 'td' || name === 'th') {
      const row = this.rows[this.rows.length - 1]
      if (row) row.pendingSep = row.hasContent
      this.cellDepth++
      this.buf += ' '
    } else if (BLOCK.has(name)) this.boundary()
    const h = HEADING.exec(name)
    if (h) this.headingLevel = Number(h[1])
    if (name === 'pre') this.preDepth++
    if (name === 'table') this.tableDepth++
    if (name === 'tr') this.rows.push({ hasContent: false, pendingSep: false })
    if (name === 'ul' || name === 'ol') this.lists.push({ ordered: name === 'ol', n: 0 })
    if (name === 'li') this.listItem(attrs.id)
  }

  text(text: string): void {
    if (this.skipDepth > 0) return
    if (this.inTitle) {
      this.titleText += text
      return
    }
    const t = this.preDepth > 0 ? text.replace(/\n/g, LINE_BREAK) : text
    if (t.trim()) {
      // A cell after a filled one gets a separator; empty spacer cells get none.
      if (this.rows.some((r) => r.pendingSep)) this.buf += ' | '
      for (const r of this.rows) {
        r.pendingSep = false
        r.hasContent = true
      }
    }
    this.buf += t
    if (this.boldDepth > 0) this.boldChars += t.replace(/\s/g, '').length
  }

  close(name: string): void {
    const open = this.stack.pop()
    if (!open) return
    if (open.bold) this.boldDepth--
    if (open.skip) {
      this.skipDepth--
      return
    }
    if (this.skipDepth > 0) return
    if (name === 'title') {
      this.inTitle = false
      this.title ??= collapseSpaces(this.titleText).trim() || null
      return
    }
    if (name === 'td' || name === 'th') this.cellDepth--
    else if (name === 'tr') {
      this.rows.pop()
      if (this.cellDepth === 0) this.flush(false, true)
      else this.buf += ' '
    } else if (name === 'pre') {
      this.flush(true)
      this.preDepth--
    } else if (BLOCK.has(name)) this.boundary()
    if (HEADING.test(name)) this.headingLevel = 0
    if (name === 'table') this.tableDepth--
    if (name === 'ul' || name === 'ol') this.lists.pop()
  }

  /** Ends the current paragraph, except inside a table cell, where blocks only separate words. */
  private boundary(): void {
    if (this.cellDepth > 0) this.buf += ' '
    else this.flush(this.preDepth > 0)
  }

  private listItem(id: string | undefined): void {
    const list = this.lists[this.lists.length - 1]
    if (list) list.n++
    if (this.cellDepth > 0) return
    const note = /^(footnote|endnote)-(\d+)$/.exec(id ?? '')
    const indent = '  '.repeat(Math.max(0, this.lists.length - 1))
    this.prefix = note ? `[${note[2]}] ` : `${indent}${list?.ordered ? `${list.n}. ` : '- '}`
  }

  /** Turns the buffered inline text into a block (paragraph, list item, row or heading). */
  flush(pre = false, row = false): void {
    const raw = this.buf
    const bold = this.boldChars
    this.buf = ''
    this.boldChars = 0
    const text = pre
      ? raw
          .replaceAll(LINE_BREAK, '\n')
          .replace(/[ \t]+$/gm, '')
          .replace(/^\n+|\n+$/g, '')
      : raw
          .split(LINE_BREAK)
          .map((l) => collapseSpaces(l).trim())
          .filter((l) => l.length > 0)
          .join('\n')
    if (!text.trim()) return
    const item = this.prefix !== ''
    const line = `${this.prefix}${text}`
    this.prefix = ''
    const letters = text.replace(/\s/g, '').length
    let heading = this.headingLevel
    if (
      heading === 0 &&
      this.tableDepth === 0 &&
      !item &&
      bold >= letters &&
      text.length <= MAX_BOLD_HEADING
    ) {
      heading = /\p{L}/u.test(text) ? WEAK_HEADING : 0
    }
    this.blocks.push({ text: line, title: text.replace(/\n/g, ' '), heading, tight: item || row })
  }
}

/**
 * Starts a piece at each heading. Bold paragraphs count as headings only when asked and only in a
 * page without real headings: there they are the author's headings; elsewhere they are emphasis.
 */
function toPieces(blocks: Block[], boldHeadings: boolean): { pieces: Piece[]; headingCount: number } {
  const strong = blocks.some((b) => b.heading > 0 && b.heading < WEAK_HEADING)
  const pieces: Piece[] = []
  let piece: Piece = { title: null, text: '' }
  let parts: string[] = []
  let headingCount = 0
  let previous: Block | null = null
  for (const block of blocks) {
    const isHeading = block.heading > 0 && (block.heading < WEAK_HEADING || (boldHeadings && !strong))
    if (isHeading) {
      piece.text = parts.join('\n\n')
      if (piece.text) pieces.push(piece)
      piece = { title: block.title, text: '' }
      parts = []
      headingCount++
    }
    if (parts.length > 0 && block.tight && previous?.tight) parts[parts.length - 1] += `\n${block.text}`
    else parts.push(block.text)
    previous = block
  }
  piece.text = parts.join('\n\n')
  if (piece.text) pieces.push(piece)
  return { pieces, headingCount }
}

/** Word footnote and comment back-links ("↑") are navigation, not text. */
function isBackLink(name: string, href: string | undefined): boolean {
  return name === 'a' && href !== undefined && /^#(footnote|endnote|comment)-ref-/.test(href)
}
