import { descending, type RankedPassage, type RankedSentence } from '../rank/index'
import { contentTerms, type Span, splitSentences, wordCount } from '../text/index'
import { type Definitional, definesSubject } from './definition'
import { notAStatement, statementAfter } from './statement'

/**
 * What composing needs of the question: its terms' weights (their keys are its index terms), the kind
 * of answer it wants, and the subject it asks to define, if it is a definitional question.
 */
export interface ComposeQuery {
  weights: Map<string, number>
  want: number
  defines?: Definitional | null
}

// Sentences a passage offers the answer: its best three statements.
// How far past a heading naming the subject its entry's first statement is looked for.
const ENTRY_LOOKAHEAD = 4
// How well an entry's first statement defines its heading's subject (definesSubject's scale: 2 defines, 1 leads).
const ENTRY_LEVEL = 1.5
const PER_PASSAGE = 3

// A sentence offering the kind of answer the best one lacks may join it at this fraction of its score.
const TYPE_RATIO = 0.5
/** How long extractive answers may get. */
export interface ComposeOptions {
  /** Word budget for the whole answer; a second sentence is added only when it fits whole. */
  maxWords: number
  /** A second sentence must score at least this fraction of the first. */
  secondRatio: number
}

/**
 * Defaults: one sentence, or two when nearly as good and together short. Sentences are never cut
 * (a clause with "…" read as a broken answer): the answer is shortened by whole sentences only, and
 * the best sentence stays whole even past the budget. The budget was 60 words when a second
 * sentence could be trimmed to fit; whole second sentences at 68 keep containment (squad-dev: 0.8145
 * against 0.8131 with trimming at 60, 0.8055 whole at 60) for 0.7 more words an answer.
 */
export const defaultComposeOptions: ComposeOptions = { maxWords: 68, secondRatio: 0.8 }

/** An extractive answer: text with [n] citations, and which sources (1-based order) it cites. */
export interface Composed {
  answer: string
  cited: number[]
  /** The answer's sentences without their citations, best first (the short answer is looked for in them). */
  ranked: string[]
}

interface Pick {
  source: number
  sentence: RankedSentence
  /** The sentence cleaned, once it is considered. */
  text: string | null
  /** How well it defines a definitional question's subject, when known otherwise than by its words. */
  level?: number
}

/**
 * Composes the answer from the ranked passages (already in `sources` order): the best supporting
 * sentence of the best passage, then the next best sentence anywhere among the top passages when it
 * is nearly as good and the answer stays within the word budget. Each sentence ends with the number
 * of the source it came from.
 */
export function composeAnswer<R>(
  passages: RankedPassage<R>[],
  q: ComposeQuery,
  opts: ComposeOptions = defaultComposeOptions,
): Composed {
  const pool = candidates(passages, q)
  // A candidate's text is cleaned only when it is considered (most never are).
  const textOf = (c: Pick) => {
    if (c.text === null) c.text = clean(passages[c.source - 1]!.text, c.sentence)
    return c.text
  }
  if (pool.length === 0) return { answer: '', cited: [], ranked: [] }
  // The best statement of the best passage leads; for a definitional question, the best sentence
  // defining its subject (or, failing one, having it as its subject) among the passages quoted.
  let best = pool[0]!
  let level = 0
  if (q.defines)
    for (const c of pool) {
      const p = passages[c.source - 1]!
      const l = Math.max(c.level ?? 0, definesSubject(p.text, c.sentence.start, c.sentence.end, q.defines))
      if (l > level || (l === level && l > 0 && c.sentence.score > best.sentence.score)) {
        best = c
        level = l
      }
    }
  const picks = [best]
  let words = wordCount(textOf(best))
  pool.sort((a, b) => descending(a.sentence.score, b.sentence.score))
  const needType = q.want !== 0 && !best.sentence.typeOk
  for (const c of pool) {
    if (c === best) continue
    const ratio = needType && c.sentence.typeOk ? TYPE_RATIO : opts.secondRatio
    if (c.sentence.score < ratio * best.sentence.score || sameStatement(textOf(c), textOf(best))) continue
    const n = wordCount(textOf(c))
    if (words + n > opts.maxWords) continue
    picks.push(c)
    words += n
    break
  }
  const ranked = picks.map(textOf)
  // Sentences from the same passage read in document order; a definition leads whatever its place.
  if (level === 0) picks.sort((a, b) => a.source - b.source || a.sentence.start - b.sentence.start)
  const cited = [...new Set(picks.map((p) => p.source))].sort((a, b) => a - b)
  const answer = picks.map((p) => `${p.text} [${p.source}]`).join(' ')
  return { answer, cited, ranked }
}

/**
 * The statements the answer may quote, best passage first, each passage's by score: its best three,
 * a heading or a question replaced by the statement it heads (with its score), and for a definitional
 * question every sentence naming the subject too. Headings, questions, sentences cut at their start
 * and sentences that only restate the question are never quoted (statement.ts).
 */
function candidates<R>(passages: RankedPassage<R>[], q: ComposeQuery): Pick[] {
  const asked = new Set(q.weights.keys())
  const pool: Pick[] = []
  passages.slice(0, 3).forEach((p, i) => {
    const seen = new Set<number>()
    let taken = 0
    for (const s of p.sentences) {
      const defining = q.defines ? definesSubject(p.text, s.start, s.end, q.defines) > 0 : false
      if (taken >= PER_PASSAGE && !defining) continue
      const why = notAStatement(p.text, s, p.start, p.end, asked)
      let sentence: RankedSentence | null = why === null ? s : null
      let level: number | undefined
      if (why === 'heading' || why === 'question' || why === 'restates') {
        // A heading that is the subject opens its entry: the entry's first statement defines it.
        const entry =
          q.defines && why === 'heading' ? entryStatement(p.text, s, p.end, asked, q.defines) : null
        // Below a sentence defining it in so many words, above one merely having it as its subject.
        if (entry) level = ENTRY_LEVEL
        const body = entry ?? statementAfter(p.text, s, p.end, asked)
        // What a heading heads answers as well as the heading matched; it is a sentence of its own.
        if (body) sentence = { ...body, score: s.score, hit: s.hit, typeOk: false }
      }
      if (!sentence || seen.has(sentence.start)) continue
      seen.add(sentence.start)
      pool.push({ source: i + 1, sentence, text: null, level })
      taken++
    }
  })
  return pool
}

/**
 * The first statement of the entry a heading naming the subject opens, past a quotation set under it
 * ("Bronto⏎"There's only two things ..." —Dwarven saying.⏎This hulking beast was originally bred ...
 * as a beast of burden"): null when the heading is not the subject or no statement follows.
 */
function entryStatement(text: string, h: Span, to: number, asked: ReadonlySet<string>, d: Definitional) {
  const heading = contentTerms(text, h.start, h.end)
  if (heading.length !== d.subject.length || heading.some((t, i) => t !== d.subject[i])) return null
  return (
    splitSentences(text, h.end, to)
      .slice(0, ENTRY_LOOKAHEAD)
      .find((n) => !/^["“'‘—–]/.test(text[n.start]!) && notAStatement(text, n, h.end, to, asked) === null) ??
    null
  )
}

/**
 * Whether a second sentence says nothing the first does not: every content word of it is one of the
 * first's (the same statement from another passage, or a page's repeat of it).
 */
function sameStatement(second: string, first: string): boolean {
  const said = new Set(contentTerms(first))
  return contentTerms(second).every((t) => said.has(t))
}

/** A sentence's text on one line, without a trailing reference mark like "[12]". */
function clean(text: string, s: RankedSentence): string {
  const one = text
    .slice(s.start, s.end)
    .replace(/\s+/g, ' ')
    .replace(/\[[^\]]{0,40}\]/g, '') // reference marks: [12], [citation needed]
    .replace(/([\p{L}.,;)"]):\d+(?:[–-]\d+)?(?=\s|$)/gu, '$1') // page marks: "visions.:33"
  // A mark taken from between two words leaves their two spaces ("TensorFlow [1] or": "TensorFlow or").
  return one
    .replace(/ {2,}/g, ' ')
    .replace(/\s+([,.;:])/g, '$1')
    .trim()
}
