import { type Span, scanWords, splitSentences, type WordInfo, wordCharAt, wordEnd } from '../text/index'

// Whether a sentence of a passage can stand as an answer. Ranking rewards short sentences that hold
// the question's words, and nothing holds them more densely than a heading that is the question
// ("What is Haystack?") or a title broken over two lines ("LayoutParser: A Unified Toolkit for
// Deep"). Neither says anything: an answer is a statement that tells the reader something the
// question did not.

/** Why a sentence is not an answer; null when it is one. */
export type NotAStatement = 'heading' | 'question' | 'restates' | 'cut' | null

// Headings are short: longer unpunctuated lines are list items, table rows or wrapped text.
const HEADING_WORDS = 10
// A list item this short is a label ("- Quick Start"), as a heading is.
const LABEL_WORDS = 4
// A bullet or a number before a line's text: a list item.
const ITEM = /^(?:[-*•–]|\d+[.)])\s/
// A table row as extraction renders one: "header: value; header: value", or cells between bars.
const ROW = /^[^:;\n]{1,80}: [^;\n]*(?:; [^:;\n]{1,80}: [^;\n]*)+$|\S \| \S/
// Code: a fence or an inline span of Markdown.
const CODE = /`/
// How a sentence ends when it is finished: a lead-in's colon, and the clause boundaries at which an
// over-long sentence is cut (sentences.ts), included.
const FINISHED = /[.!?:;,…]["'”’)\]]*$/

/**
 * What keeps text[s] (a sentence of the passage text[from, to)) from being an answer: a question; a
 * heading (a short line of its own that starts with no lower-case word and ends without a sentence's
 * end, a short list item, or a short run of capitals); a sentence cut off (a long one with no end
 * where it stops, as a page or a column breaks it, or one whose first word is lower case where no
 * sentence ended before it); or one whose content words are all the question's (`asked`: its index
 * terms), which adds nothing to it. Table rows and code are data: never headings or cut.
 */
export function notAStatement(
  text: string,
  s: Span,
  from: number,
  to: number,
  asked: ReadonlySet<string>,
): NotAStatement {
  // Reference and page marks or closing emphasis after the end ("... future.[7]", "... ideas).:4–5:24",
  // "**Install.**") are not how it ends.
  const body = withoutEndMarks(text.slice(s.start, s.end).trim())
  // A question of its own; one quoted in a statement ('... asks: "Why ...?"') is part of the statement.
  if (/\?[)\]]*$/.test(body)) return 'question'
  // Rows follow each other without a sentence's end, so a sentence may hold several: its first line tells.
  const first = body.split('\n', 1)[0]!
  if (!ROW.test(first) && !CODE.test(body)) {
    const words = body.split(/\s+/).length
    const item = ITEM.test(body)
    const finished = FINISHED.test(body)
    if (words <= HEADING_WORDS && isCapitals(body)) return 'heading'
    const line = lineStartsAt(text, s.start, from) && lineEndsAt(text, s.end, to)
    if (line && !finished && !/^\p{Ll}/u.test(body) && words <= (item ? LABEL_WORDS : HEADING_WORDS))
      return 'heading'
    if (!finished && !item && words > HEADING_WORDS) return 'cut'
    if (startsCut(text, s.start, from, body)) return 'cut'
  }
  if (onlyAsked(text, s.start, s.end, asked)) return 'restates'
  return null
}

/**
 * Whether every content word starting in text[from, to) is one of the question's terms, as
 * `contentTerms(text, from, to).every(t => asked.has(t))` says, but stopping at the first that is
 * not (most sentences have one among their first words): one word at a time through `scanWords`.
 */
export function onlyAsked(text: string, from: number, to: number, asked: ReadonlySet<string>): boolean {
  let all = true
  let next = -1
  const check = (w: WordInfo, _start: number, end: number) => {
    next = end
    if (!w.stop && !asked.has(w.term)) all = false
  }
  let i = from
  while (all && i < to) {
    if (wordCharAt(text, i) === 0) {
      i++
      continue
    }
    next = -1
    scanWords(text, i, i + 1, check)
    i = next >= 0 ? next : wordEnd(text, i)
  }
  return all
}

/** A sentence without the reference and page marks or closing emphasis after its end. */
export function withoutEndMarks(body: string): string {
  // Each mark ends in "]", a digit, "*" or "_": a sentence ending otherwise has none to take off.
  const last = body.charCodeAt(body.length - 1)
  if (last !== 93 && last !== 42 && last !== 95 && !(last >= 48 && last <= 57)) return body
  return body.replace(END_MARKS, '')
}

const END_MARKS = /(?:\[[^\]\n]{1,40}\]|:\d+(?:[–-]\d+)?|\*\*|__)+$/u

/** Whether a text's letters are all capitals ("GALAXY GAMING, INC."): a title, whatever ends it. */
function isCapitals(body: string): boolean {
  return /\p{Lu}.*\p{Lu}/u.test(body) && !/\p{Ll}/u.test(body)
}

/** Whether a sentence starts in the middle of one: a lower-case word (not "iPhone") after no sentence end. */
function startsCut(text: string, start: number, from: number, body: string): boolean {
  if (!/^\p{Ll}(?!\p{Lu})/u.test(body)) return false
  let i = start - 1
  while (i >= from && /\s/.test(text[i]!)) i--
  return i < from || !/[.!?:;"'”’)\]]/.test(text[i]!)
}

function lineStartsAt(text: string, at: number, from: number): boolean {
  let i = at - 1
  while (i >= from && (text[i] === ' ' || text[i] === '\t')) i--
  return i < from || text[i] === '\n'
}

function lineEndsAt(text: string, at: number, to: number): boolean {
  let i = at
  while (i < to && (text[i] === ' ' || text[i] === '\t' || text[i] === '\r')) i++
  return i >= to || text[i] === '\n'
}

// How far past a heading its first statement is looked for (a heading may stack on another).
const BODY_LOOKAHEAD = 4

/**
 * The first statement after a sentence that is not one, within the passage text[.., to): what a
 * heading or a question heads. Null when none follows within a few sentences.
 */
export function statementAfter(text: string, s: Span, to: number, asked: ReadonlySet<string>): Span | null {
  const next = splitSentences(text, s.end, to).slice(0, BODY_LOOKAHEAD)
  return next.find((n) => notAStatement(text, n, s.end, to, asked) === null) ?? null
}
