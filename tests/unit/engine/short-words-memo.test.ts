import { describe, expect, test } from 'bun:test'
import {
  candidateSpans,
  hyphenTerm,
  isNoun,
  senseOf,
  shortAnswer,
  spanWords,
} from '../../../src/features/engine/compose/index'
import { isStop, mostlyNoun, normWord, nounSense } from '../../../src/features/engine/text/index'
import { articleTexts } from './fixture'

/** A seeded generator of made-up words, so that the memos fill and are cleared. */
function madeUp(seed: number, n: number): string[] {
  let x = seed
  const next = () => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0
    return x
  }
  return Array.from({ length: n }, () => {
    const len = 3 + (next() % 8)
    let w = ''
    for (let i = 0; i < len; i++) w += String.fromCharCode(97 + (next() % 26))
    return next() % 5 === 0 ? `${w[0]!.toUpperCase()}${w.slice(1)}` : w
  })
}

const sentences = articleTexts.flatMap((t) => t.split(/(?<=[.!?])\s+/)).filter((s) => s.length > 0)

describe("the short answer's word facts, worked out once a word", () => {
  test('each word of every sentence is what working it out anew gives, before and after the memos are cleared', () => {
    const extra = madeUp(7, 60_000)
    const texts = [
      ...sentences,
      ...Array.from({ length: 3_000 }, (_, i) => extra.slice(i * 20, i * 20 + 20).join(' ')),
    ]
    expect(texts.length).toBeGreaterThan(3_500)
    for (const pass of [0, 1]) {
      let checked = 0
      for (const text of texts) {
        for (const w of spanWords(text)) {
          const raw = text
            .slice(w.start, w.end)
            .replace(/^[$£€¥]/, '')
            .replace(/%$/, '')
          const norm = normWord(raw)
          const stop = isStop(norm)
          if (w.norm !== norm || w.stop !== stop || w.term !== (stop ? norm : hyphenTerm(norm)))
            throw new Error(`pass ${pass}: ${raw} in ${text}`)
          if (isNoun(norm) !== mostlyNoun(norm) || senseOf(norm) !== nounSense(norm))
            throw new Error(`pass ${pass}: WordNet's facts of ${norm}`)
          checked++
        }
      }
      expect(checked).toBeGreaterThan(60_000)
    }
  })

  test('spans and short answers are the same asked again, once the words are known', () => {
    const some = sentences.filter((_, i) => i % 7 === 0).slice(0, 300)
    const first = some.map((s) => JSON.stringify(candidateSpans(spanWords(s))))
    const answers = some.map((s, i) => shortAnswer(i % 2 ? 'When did it happen?' : 'Who led it?', [s]))
    expect(some.map((s) => JSON.stringify(candidateSpans(spanWords(s))))).toEqual(first)
    expect(some.map((s, i) => shortAnswer(i % 2 ? 'When did it happen?' : 'Who led it?', [s]))).toEqual(
      answers,
    )
    expect(answers.filter((a) => a !== null).length).toBeGreaterThan(20)
  })
})
