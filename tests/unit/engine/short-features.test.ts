import { describe, expect, test } from 'bun:test'
import {
  candidateSpans,
  type Features,
  shortAnswer,
  shortQuestion,
  spanFeatures,
  spanWords,
  Want,
} from '../../../src/features/engine/compose/index'

/** The candidate spans of a sentence, as text. */
function spans(text: string): string[] {
  const words = spanWords(text)
  return candidateSpans(words).map((s) => text.slice(words[s.from]!.start, words[s.to - 1]!.end))
}

/** The features of the candidate span `span` of `sentence` for `question` (null when it only repeats it). */
function featuresOf(question: string, sentence: string, span: string): Features | null {
  const words = spanWords(sentence)
  const s = candidateSpans(words).find(
    (c) => sentence.slice(words[c.from]!.start, words[c.to - 1]!.end) === span,
  )
  if (!s) throw new Error(`"${span}" is no candidate of "${sentence}"`)
  return spanFeatures(words, s, shortQuestion(question), 0)
}

describe('the answer’s slot in a question', () => {
  test('a wh-subject puts the slot first: the question’s words follow the answer', () => {
    const q = shortQuestion('Who discovered oxygen?')
    expect([...q.left]).toEqual([])
    expect([...q.right].sort()).toEqual(['discov', 'oxygen'])
  })

  test('an auxiliary after the wh-phrase puts the slot last: the question’s words precede the answer', () => {
    const q = shortQuestion('What did the army throw?')
    expect([...q.left].sort()).toEqual(['armi', 'throw'])
    expect([...q.right]).toEqual([])
  })

  test('only what, which and how many name a kind noun; "who" is followed by the verb', () => {
    expect(shortQuestion('Who discovered oxygen?').head).toBeNull()
    expect(shortQuestion('Who discovered oxygen?').after).toBe('discov')
    expect(shortQuestion('Which river flows through Warsaw?').head).toBe('river')
    expect(shortQuestion('What kind of cells kill viruses?').head).toBe('cell')
  })

  test('"Name a …" asks for a thing', () => {
    expect(shortQuestion('Name a luxury model of the 1970s.').want).toBe(Want.thing)
  })

  test('the question’s words on the side the slot puts them count for a span, the others against it', () => {
    const f = featuresOf(
      'Who proclaimed the embargo?',
      'In 1973 the Arab members proclaimed an embargo.',
      'Arab members',
    )
    expect(f?.sideOk).toBe(1)
    expect(f?.sideBad).toBe(0)
  })
})

describe('what a span’s neighbours say', () => {
  test('a form of "be" linking the span to the question’s words', () => {
    const q = 'What is the most common cause of injury?'
    const f = featuresOf(q, 'Falls are the most common cause of injury on site.', 'Falls')
    expect(f?.copula).toBe(1)
  })

  test('an example or a name introduced by "known as", "such as", "called"', () => {
    const f = featuresOf(
      'What are the agents called?',
      'The system detects agents, known as pathogens.',
      'pathogens',
    )
    expect(f?.cue).toBe(1)
  })

  test('punctuation between the span and the nearest question word marks another clause', () => {
    const f = featuresOf(
      'Who invited the prince?',
      'Genghis Khan, who ruled, invited the prince.',
      'Genghis Khan',
    )
    expect(f?.clause).toBe(1)
  })
})

describe('candidate spans of a sentence', () => {
  test('a value takes a noun after it as its unit, not a verb', () => {
    const found = spans('Hurricane Floyd in 1999 caused damage to 300 houses.')
    expect(found).toContain('300 houses')
    expect(found).not.toContain('1999 caused')
  })

  test('a phrase ends on a word mostly used as a noun', () => {
    expect(spans('The end of the century saw a battle.')).not.toContain('century saw')
  })

  test('a hyphenated word of the question is not offered back as its answer', () => {
    const answer = shortAnswer('What is Engineering News-Record?', [
      'Engineering News-Record is a trade magazine for the construction industry.',
    ])
    expect(answer).not.toBe('News-Record')
    expect(answer).not.toBe('Engineering News-Record')
  })
})
