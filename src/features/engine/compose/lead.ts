import { contentTerms, wordCount } from '../text/index'
import type { Composed } from './answer'
import { type Definitional, definesSubject } from './definition'
import { leadWith } from './short'

// The short answer leads the answer ("1879 — He was born in 1879. [1]") when it reads as an answer
// on its own. The span picker (short.ts) always offers its best span, which is what a fact benchmark
// scores (AskResult.shortAnswer), but its best span is not always one to put first: a word of a
// sentence that merely mentions the subject of a definitional question ("source — It's remarkable
// how often a situation with one source of superlinear returns ..."), half a possessive
// ("Australia’s — Cancer Council is Australia’s peak ..."), or most of its sentence starting with the
// question's own words ("developed using distinct frameworks like TensorFlow or PyTorch, and the
// high-level parameters — Existing models are developed using ..."): a fragment, said twice.

// A lead longer than this many words must be at most half of its sentence.
const SHORT_LEAD = 4

/**
 * The short answer when it may lead the answer, or null: for a definitional question (`defines`),
 * the phrase the defining sentence gives (`defined`), or a span of a sentence defining the subject;
 * otherwise a span of the answer's sentences that does not end on a possessive, does not start
 * with a content word of the question, and, when longer than a few words, is at most half its sentence.
 */
export function leading(
  short: string | null,
  question: string,
  sentences: string[],
  defines: Definitional | null,
  defined: string | null,
): string | null {
  if (short === null) return null
  if (defined !== null && short === defined) return short
  const sentence = sentences.find((s) => s.includes(short))
  if (sentence === undefined) return null
  if (defines && definesSubject(sentence, 0, sentence.length, defines) < 2) return null
  if (/\p{L}['’]s?$/u.test(short)) return null
  const terms = contentTerms(short)
  if (terms.length > 1 && contentTerms(question).includes(terms[0]!)) return null
  const n = wordCount(short)
  return n > SHORT_LEAD && 2 * n > wordCount(sentence) ? null : short
}

/** The composed answer led by its short answer when that may lead it (`leading`). */
export function ledAnswer(
  composed: Composed,
  short: string | null,
  question: string,
  defines: Definitional | null,
  defined: string | null,
): string {
  return leadWith(leading(short, question, composed.ranked, defines, defined), composed.answer)
}
