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
//
// A lead also costs words (issue 38: it made answers 3 words longer, squad-dev 39.97 to 43.00), so
// it leads only where it adds something: a value or a name (a lower-case phrase is one the sentence
// says as plainly), not the words the answer already opens with ("Carl Wilhelm Scheele — Carl
// Wilhelm Scheele discovered oxygen ..."), and never taking an answer past ANSWER_WORDS.

// A lead longer than this many words must be at most half of its sentence.
const SHORT_LEAD = 4
// An answer the lead would take past this many words is left without it.
const ANSWER_WORDS = 40

/**
 * The short answer when it may lead the answer, or null: for a definitional question (`defines`),
 * the phrase the defining sentence gives (`defined`), or a span of a sentence defining the subject;
 * otherwise a span of the answer's sentences that is a value or a name (holds a digit, or starts with
 * one or a capital; any phrase of a defining sentence for a definitional question), does not end on a possessive, does not open the answer's first sentence, does not
 * start with a content word of the question, and, when longer than a few words, is at most half its
 * sentence.
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
  if (!defines && !/^[\p{Lu}\p{N}]|\p{N}/u.test(short)) return null
  if (sentences[0]?.startsWith(short)) return null
  const terms = contentTerms(short)
  if (terms.length > 1 && contentTerms(question).includes(terms[0]!)) return null
  const n = wordCount(short)
  return n > SHORT_LEAD && 2 * n > wordCount(sentence) ? null : short
}

/** The composed answer led by its short answer when that may lead it (`leading`) and the two fit in ANSWER_WORDS. */
export function ledAnswer(
  composed: Composed,
  short: string | null,
  question: string,
  defines: Definitional | null,
  defined: string | null,
): string {
  const lead = leading(short, question, composed.ranked, defines, defined)
  // The lead and its dash count as words of the answer.
  const fits = lead !== null && wordCount(lead) + 1 + wordCount(composed.answer) <= ANSWER_WORDS
  return leadWith(fits ? lead : null, composed.answer)
}
