import { describe, expect, test } from 'bun:test'
import { type Composed, definitional, leading, ledAnswer } from '../../../src/features/engine/compose/index'

// The short answer leads the answer only where it adds something (issue 38: leads had made answers
// three words longer): a value or a name, not the words the answer opens with, and never past 40 words.

const lead = (question: string, short: string, sentence: string) =>
  leading(short, question, [sentence], definitional(question), null)

describe('a lead costs words, so only a lead that adds something is kept', () => {
  test('a lower-case phrase the sentence says as plainly does not lead; a value or a name does', () => {
    expect(lead('What colour is liquid oxygen?', 'pale blue', 'Liquid oxygen is pale blue.')).toBeNull()
    expect(lead('What river is Warsaw on?', 'Vistula River', 'It stands on the Vistula River.')).toBe(
      'Vistula River',
    )
    expect(lead('How many were killed?', '75 to 200 million', 'It killed 75 to 200 million people.')).toBe(
      '75 to 200 million',
    )
  })

  test('the words the answer already opens with do not lead', () => {
    const sentence = 'Carl Wilhelm Scheele discovered oxygen in Uppsala by 1773.'
    expect(lead('Who discovered oxygen?', 'Carl Wilhelm Scheele', sentence)).toBeNull()
  })

  test('a definitional question is still led by the phrase defining its subject', () => {
    expect(
      lead('What is a revenant?', 'corpse', 'A revenant is a corpse possessed by a demon of pride.'),
    ).toBe('corpse')
  })

  test('a lead never takes the answer past 40 words, lead and dash counted', () => {
    const composed = (answer: string): Composed =>
      ({ answer, ranked: [answer.replace(/ \[1\]$/, '')] }) as unknown as Composed
    const q = 'When did the embargo begin?'
    const short = 'October 1973'
    const words = (n: number) => Array.from({ length: n }, () => 'word').join(' ')
    // 37 words and the citation mark: 38; the lead adds 2 words and the dash, 41.
    const long = `The embargo began in October 1973 ${words(31)}. [1]`
    expect(ledAnswer(composed(long), short, q, null, null)).toBe(long)
    const fits = `The embargo began in October 1973 ${words(30)}. [1]`
    expect(ledAnswer(composed(fits), short, q, null, null)).toBe(`October 1973 — ${fits}`)
  })
})
