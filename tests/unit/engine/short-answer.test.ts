import { describe, expect, test } from 'bun:test'
import { candidateSpans, leadWith, shortAnswer, spanWords } from '../../../src/features/engine/compose/index'

describe('the short answer of a fact question', () => {
  const cases = [
    ['When was Tesla born?', 'He was born on 10 July 1856 in the village of Smiljan.', '10 July 1856'],
    ['In what year did the war end?', 'The war ended in 1648 with the Peace of Westphalia.', '1648'],
    [
      'How many people died in the outbreak?',
      'The outbreak killed 75 to 200 million people across Eurasia.',
      '75 to 200 million',
    ],
    [
      'Who discovered oxygen?',
      'Carl Wilhelm Scheele discovered oxygen in Uppsala by 1773.',
      'Carl Wilhelm Scheele',
    ],
    [
      'What river is Warsaw on?',
      'Warsaw stands on the Vistula River in east-central Poland.',
      'Vistula River',
    ],
    ['What colour is liquid oxygen?', 'Liquid oxygen is pale blue.', 'pale blue'],
  ] as const
  for (const [question, sentence, short] of cases)
    test(`"${question}" is answered by "${short}"`, () => {
      expect(shortAnswer(question, [sentence])).toBe(short)
    })

  test('a question that asks for no fact (why, how) gets no short answer', () => {
    const sentence = 'The bridge fell because the river flooded in 1910.'
    expect(shortAnswer('Why did the bridge fall?', [sentence])).toBeNull()
    expect(shortAnswer('How did the bridge fall?', [sentence])).toBeNull()
  })

  test('no sentence, no short answer', () => {
    expect(shortAnswer('When was Tesla born?', [])).toBeNull()
  })

  test('a span made only of the question’s own words is never the answer', () => {
    expect(shortAnswer('Who was Tesla?', ['Tesla.'])).toBeNull()
  })

  test('the best sentence is preferred over a later one offering the same kind of answer', () => {
    const best = 'The bridge was opened in 1883 after fourteen years of work.'
    const later = 'A second bridge was opened in 1903.'
    expect(shortAnswer('When was the bridge opened?', [best, later])).toBe('1883')
  })
})

describe('candidate spans', () => {
  const spans = (text: string) => {
    const words = spanWords(text)
    return candidateSpans(words).map((s) => text.slice(words[s.from]!.start, words[s.to - 1]!.end))
  }

  test('values keep their joins, scale words and modifiers', () => {
    const found = spans('Prices rose from $3 per barrel to nearly $12 in March 1974.')
    expect(found).toContain('$3 per barrel')
    expect(found).toContain('nearly $12')
    expect(found).toContain('March 1974')
  })

  test('names keep their inner "of" and phrases are joined by "of" and commas into longer ones', () => {
    const found = spans(
      'The members of the Organization of Arab Petroleum Exporting Countries met in war, famine, and weather.',
    )
    expect(found).toContain('Organization of Arab Petroleum Exporting Countries')
    expect(found).toContain('members of the Organization of Arab Petroleum Exporting Countries')
    expect(found).toContain('war, famine, and weather')
  })

  test('a sentence’s capitalised first word is a name only when it is no common noun', () => {
    expect(spanWords('Following the war, Paris grew.')[0]!.cap).toBe(false)
    expect(spanWords('Kowalski found it.')[0]!.cap).toBe(true)
  })
})

describe('an answer led by its short answer', () => {
  test('the short answer comes first, then the cited sentences', () => {
    expect(leadWith('1879', 'He was born in 1879. [1]')).toBe('1879 — He was born in 1879. [1]')
  })

  test('without a short answer the answer is unchanged', () => {
    expect(leadWith(null, 'He was born in 1879. [1]')).toBe('He was born in 1879. [1]')
  })
})
