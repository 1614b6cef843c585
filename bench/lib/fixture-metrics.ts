// How the fixture questions (bench/data/fixture-questions.json) judge an answer: does it hold an
// acceptable answer, does it merely repeat the question or a heading, does it start with a cut-off
// fragment. Judged from the answer's text and its document's extracted text only, so that any engine
// (or a person's answer) can be scored the same way.
import { contentTerms } from '../../src/features/engine/text/index'
import { normalize } from './squad-metrics'

/** An acceptable answer: a string, or strings that must all be in the answer. */
export type Acceptable = string | string[]

/** One question of the set. */
export interface FixtureQuestion {
  id: string
  half: 'tuning' | 'held-out'
  kind: 'definition' | 'fact' | 'table'
  question: string
  /** The documents (paths under tests/fixtures/data/docs) that answer it; any one will do. */
  documents: string[]
  answers: Acceptable[]
}

/** SQuAD's normalisation, with thousands separators dropped first ("6,300" is "6300"). */
function norm(s: string): string {
  return normalize(s.replace(/(\d),(?=\d{3}\b)/g, '$1'))
}

/** Whether `answer` holds one of the acceptable answers, as whole normalised words. */
export function holdsAnswer(answer: string, acceptable: Acceptable[]): boolean {
  const hay = ` ${norm(answer)} `
  return acceptable.some((a) =>
    (Array.isArray(a) ? a : [a]).every((s) => norm(s) !== '' && hay.includes(` ${norm(s)} `)),
  )
}

/** The sentences an extractive answer quotes: its text without the short answer's lead, cut at its citations. */
export function answerSentences(answer: string, short: string | null): string[] {
  const body = short && answer.startsWith(`${short} — `) ? answer.slice(short.length + 3) : answer
  return body
    .split(/\s*\[\d+\]\s*/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
}

// A line that is a table row as extraction renders one: "header: value; header: value".
const ROW = /^[^:;\n]{1,80}: [^;\n]*(; [^:;\n]{1,80}: [^;\n]*)+$/
// A list item: a bullet or a number before the text.
const ITEM = /^\s*(?:[-*•–]|\d+[.)])\s/

/**
 * Whether `sentence` is a heading of `doc`: a whole line of it (alone on its line) of at most 12
 * words, not ending a statement with a period, and neither a list item nor a table row.
 */
export function isHeadingOf(sentence: string, doc: string): boolean {
  const s = sentence.trim()
  if (s.split(/\s+/).length > 12 || /[.]["'”’)]?$/.test(s) || ITEM.test(s) || ROW.test(s)) return false
  const at = locate(s, doc)
  if (!at) return false
  const lineStart = doc.lastIndexOf('\n', at.start - 1) + 1
  const lineEnd = doc.indexOf('\n', at.end)
  const line = doc.slice(lineStart, lineEnd < 0 ? doc.length : lineEnd).trim()
  return line === doc.slice(at.start, at.end).trim()
}

/**
 * Whether an answer merely repeats: every sentence it quotes either adds no content word the
 * question lacks, or is a heading of its document.
 */
export function merelyRepeats(question: string, sentences: string[], doc: string): boolean {
  if (sentences.length === 0) return false
  const asked = new Set(contentTerms(question))
  return sentences.every((s) => contentTerms(s).every((t) => asked.has(t)) || isHeadingOf(s, doc))
}

/**
 * Whether an answer starts with a cut-off fragment: its first sentence starts in the middle of one
 * (a lower-case word or a closing mark first), or, found in its document, stops without a sentence's
 * end while its paragraph goes on (the first line of a title broken over two lines, a clause cut by a
 * page). A list item or a table row followed by the next one is whole.
 */
export function startsWithFragment(sentences: string[], doc: string): boolean {
  const first = sentences[0]
  if (!first) return false
  if (/^[\p{Ll},;:)\]]/u.test(first)) return true
  if (/[.!?:;]["'”’)\]]?$/.test(first) || ITEM.test(first) || ROW.test(first)) return false
  const at = locate(first, doc)
  if (!at) return false
  const rest = doc.slice(at.end, at.end + 200)
  // The paragraph goes on when the next non-blank text comes before a blank line.
  const m = /^[ \t]*\n?[ \t]*(\S[^\n]*)/.exec(rest)
  if (!m || /^[ \t]*\n[ \t]*\n/.test(rest)) return false
  const next = m[1]!
  return !ITEM.test(next) && !ROW.test(next)
}

/** Where `sentence` is in `doc`, white space taken loosely; null when it is not found as written. */
function locate(sentence: string, doc: string): { start: number; end: number } | null {
  const words = sentence.trim().split(/\s+/).map(escapeRegExp)
  if (words.length === 0) return null
  const m = new RegExp(words.join('\\s+')).exec(doc)
  return m ? { start: m.index, end: m.index + m[0].length } : null
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
