import { describe, expect, test } from 'bun:test'
import { uncut, wholeSentences } from '../../../src/features/answers/answers.text'
import { composeAnswer } from '../../../src/features/engine/compose/index'
import type { RankedPassage } from '../../../src/features/engine/rank/index'

/** A passage of the given sentences, each scored as given (the first is the best). */
function passage(sentences: string[], scores: number[]): RankedPassage<string> {
  const text = sentences.join(' ')
  let at = 0
  const spans = sentences.map((s, i) => {
    const start = text.indexOf(s, at)
    at = start + s.length
    return { start, end: at, score: scores[i]!, hit: 1, typeOk: true }
  })
  return {
    ref: 'doc',
    ordinal: 0,
    text,
    start: 0,
    end: text.length,
    score: 1,
    sentences: spans.sort((a, b) => b.score - a.score),
  }
}

const q = { weights: new Map([['react', 1]]), want: 0 }
const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ')

describe('extractive answers end on a sentence boundary', () => {
  test('a sentence longer than the word budget is given whole, never cut with an ellipsis', () => {
    const long = `Table 3 includes ReAct experiments on HotpotQA, ${words(40)}, and also on FEVER, ${words(30)}.`
    const { answer } = composeAnswer([passage([long], [5])], q)
    expect(answer).toBe(`${long} [1]`)
    expect(answer).not.toContain('…')
  })

  test('a second sentence joins only when it fits whole in the budget', () => {
    const first = `ReAct interleaves reasoning and acting, ${words(20)}.`
    const fits = `ReAct was tested on four tasks, ${words(10)}.`
    const tooLong = `ReAct beats chain of thought, ${words(50)}.`
    expect(composeAnswer([passage([first, fits], [5, 4.5])], q).answer).toBe(`${first} [1] ${fits} [1]`)
    expect(composeAnswer([passage([first, tooLong], [5, 4.5])], q).answer).toBe(`${first} [1]`)
  })
})

describe("a model's answer cut by max_tokens", () => {
  test('is trimmed back to its last complete sentence; one that stopped on its own is kept', () => {
    const cut = 'Table 3 includes ReAct experiments [1]. They show that ReAct beats the baselines on [1'
    expect(uncut(cut, 'length')).toBe('Table 3 includes ReAct experiments [1].')
    expect(uncut('It ends "here." And then', 'length')).toBe('It ends "here."')
    expect(uncut('Not even one sentence', 'length')).toBe('')
    expect(uncut('It ended without a period', 'stop')).toBe('It ended without a period')
  })

  test('is streamed a sentence at a time and its unfinished sentence is never sent', async () => {
    async function* model(pieces: string[], finish: string): AsyncGenerator<string, string> {
      for (const p of pieces) yield p
      return finish
    }
    const collect = async (g: AsyncGenerator<string, boolean>) => {
      const out: string[] = []
      let n = await g.next()
      while (!n.done) {
        out.push(n.value)
        n = await g.next()
      }
      return { out, sent: n.value }
    }
    const pieces = ['Table 3 ', 'includes ReAct [1]. ', 'It was ', 'run twice [2]. ', 'Then on ']
    expect(await collect(wholeSentences(model(pieces, 'length')))).toEqual({
      out: ['Table 3 includes ReAct [1].', ' It was run twice [2].'],
      sent: true,
    })
    expect((await collect(wholeSentences(model(pieces, 'stop')))).out.join('')).toBe(pieces.join(''))
    expect(await collect(wholeSentences(model(['Cut before ', 'the end'], 'length')))).toEqual({
      out: [],
      sent: false,
    })
  })
})
