import { describe, expect, test } from 'bun:test'
import { condenseQuestion, keyPhrase } from '../../../src/features/engine/rank/index'

const history = (q: string) => [
  { role: 'user', content: q },
  { role: 'assistant', content: 'Some answer [1]' },
]

describe('condensing follow-ups', () => {
  test('a pronoun takes the key phrase of the last user question', () => {
    expect(condenseQuestion('When did he die?', history('Where did Nikola Tesla live?'))).toBe(
      'When did Nikola Tesla die?',
    )
    expect(condenseQuestion('What is its population?', history('Where is Warsaw?'))).toBe(
      "What is Warsaw's population?",
    )
  })

  test('an elliptical follow-up reuses the last question with the new subject', () => {
    expect(condenseQuestion('What about Edison?', history('When was Tesla born?'))).toBe(
      'When was Edison born?',
    )
  })

  test('a standalone question, or one without history, is left as it is', () => {
    expect(condenseQuestion('Who discovered oxygen?', history('Where is Warsaw?'))).toBe(
      'Who discovered oxygen?',
    )
    expect(condenseQuestion('When did he die?')).toBe('When did he die?')
  })

  test('the key phrase is the longest name, else the last content words', () => {
    expect(keyPhrase('What did the Bank of England do in 1694?')).toBe('Bank of England')
    expect(keyPhrase('how is liquid oxygen stored?')).toBe('liquid oxygen stored')
  })
})
