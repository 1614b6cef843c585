import { TokenKind, tokenKind } from './query'
import { scanWords, wordCount } from './text'

/** What trimming needs of the question: its terms' weights and the kind of answer it wants. */
export interface TrimQuery {
  weights: Map<string, number>
  want: number
}

interface Segment {
  text: string
  words: number
  match: number
  typed: boolean
}

// Clause boundaries: after , ; : and around parentheses and dashes.
const CLAUSE = /(?<=[,;:])\s+|\s+(?=\()|(?<=\))\s+|\s+[–—]\s+|\s+-\s+/

/** The clauses of a sentence, each scored by the question-term weight it holds. */
function segments(sentence: string, q: TrimQuery): Segment[] {
  const out: Segment[] = []
  for (const part of sentence.split(CLAUSE)) {
    if (!part.trim()) continue
    let match = 0
    let typed = false
    const seen = new Set<string>()
    const words = part.split(/\s+/).filter(Boolean)
    scanWords(part, 0, part.length, (w, start) => {
      if (w.stop) return
      const weight = q.weights.get(w.term)
      if (weight !== undefined) {
        if (!seen.has(w.term)) match += weight
        seen.add(w.term)
      } else if (q.want) {
        const kind = tokenKind(part, start, w.norm, false, false)
        if (kind & q.want & (TokenKind.date | TokenKind.number)) typed = true
        else if (q.want & TokenKind.entity && kind & TokenKind.entity) typed = true
      }
    })
    out.push({ text: part.trim(), words: words.length, match, typed })
  }
  return out
}

/**
 * Cuts a long sentence down to the clauses that answer the question: the clause holding the most
 * question weight, grown clause by clause towards whichever neighbour adds the most (a clause with
 * a word of the wanted kind counts), while it fits in `maxWords`. Cut ends are marked with "…".
 */
export function trimSentence(sentence: string, q: TrimQuery, maxWords: number): string {
  // Clauses hold at most the sentence's words (a dash between clauses is dropped): most sentences fit.
  if (wordCount(sentence) <= maxWords) return sentence
  const segs = segments(sentence, q)
  const total = segs.reduce((a, s) => a + s.words, 0)
  if (total <= maxWords || segs.length < 2) return sentence
  let best = 0
  segs.forEach((s, i) => {
    if (s.match > segs[best]!.match) best = i
  })
  let lo = best
  let hi = best
  let words = segs[best]!.words
  let typed = segs[best]!.typed
  const gain = (s: Segment) => s.match + (!typed && s.typed ? 1.5 : 0) + 0.01
  for (;;) {
    const left = lo > 0 ? segs[lo - 1]! : null
    const right = hi < segs.length - 1 ? segs[hi + 1]! : null
    const canL = left !== null && words + left.words <= maxWords
    const canR = right !== null && words + right.words <= maxWords
    if (!canL && !canR) break
    // Prefer the right: an answer usually follows the words the question repeats.
    const takeRight = canR && (!canL || gain(right!) >= gain(left!))
    const s = takeRight ? right! : left!
    if (takeRight) hi++
    else lo--
    words += s.words
    typed ||= s.typed
  }
  const body = segs
    .slice(lo, hi + 1)
    .map((s) => s.text)
    .join(' ')
  return `${lo > 0 ? '… ' : ''}${body}${hi < segs.length - 1 ? ' …' : ''}`
}
