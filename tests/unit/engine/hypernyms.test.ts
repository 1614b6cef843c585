import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { HYPERNYMS_PATH, renderHypernyms } from '../../../scripts/build-hypernyms'
import { cartEntry, compileCartridge, searchCartridges } from '../../../src/features/engine/cart/index'
import { AnswerType, planQuery } from '../../../src/features/engine/rank/index'
import { answerKind, KindTest, kindTest, nounSense, tokenize } from '../../../src/features/engine/text/index'
import { fixtureEngine, onboardDoc } from './fixture'

const kindOf = (question: string) => new KindTest(answerKind(tokenize(question)))

// Two passages alike but for one word; the one with lightning is longer, so it loses without the kind.
const LIGHTNING = 'In the storm the old tower produced bright lightning over the valley.'
const NOISE = 'In the storm the old tower produced noise over the valley.'
const QUESTION = 'What natural phenomenon did the old tower produce in the storm?'

describe('answer kinds from WordNet', () => {
  test('the committed table is what WordNet generates (run scripts/build-hypernyms.ts)', () => {
    const committed = readFileSync(HYPERNYMS_PATH, 'utf8')
    expect(committed).toBe(renderHypernyms())
    expect(committed).toContain('WordNet 3.1 Copyright 2011 by Princeton University')
  })

  test('the kind a question asks for: the noun after what/which, a person for who, a place for where', () => {
    expect(kindOf(QUESTION).has(nounSense('lightning'))).toBe(true)
    expect(kindOf(QUESTION).has(nounSense('noise'))).toBe(false)
    expect(kindOf('What language did the monks teach?').has(nounSense('latin'))).toBe(true)
    expect(kindOf('In what languages were the classes given?').has(nounSense('latin'))).toBe(true)
    expect(kindOf('Who found the body?').has(nounSense('maid'))).toBe(true)
    expect(kindOf('Who found the body?').has(nounSense('table'))).toBe(false)
    expect(kindOf('Who found the body?').has(-1)).toBe(false)
    expect(kindOf('Where was the lab?').has(nounSense('harbour'))).toBe(true)
    expect(kindOf('Where was the lab?').has(nounSense('maid'))).toBe(false)
    // No kind: no noun after the wh-word, a vague one, or a word that is mostly a verb after the noun.
    expect(answerKind(tokenize('What did he do to his feet at night?'))).toEqual([])
    expect(answerKind(tokenize('What did Luther think of the peasants?'))).toEqual([])
    expect(answerKind(tokenize('What other thing did he build?'))).toEqual([])
    expect(answerKind(tokenize('When was Tesla born?'))).toEqual([])
    expect(answerKind(tokenize('When were the first Doctor Who books published?'))).toEqual([])
    expect(answerKind(tokenize('What process produces oxygen?'))).toEqual(
      answerKind(tokenize('What process makes oxygen?')),
    )
    expect(planQuery(QUESTION).want & AnswerType.noun).toBe(AnswerType.noun)
    expect(planQuery('When was Tesla born?').want & AnswerType.noun).toBe(0)
  })

  test('a shared test answers as a fresh one, whatever it resolved before', () => {
    const words = 'maid harbour lightning table king river engineer violin city tree oak noise'.split(' ')
    const kind = answerKind(tokenize('Who found the body?'))
    const shared = kindTest(kind)
    expect(kindTest([...kind])).toBe(shared)
    const before = words.map((w) => shared.has(nounSense(w)))
    expect(words.map((w) => new KindTest(kind).has(nounSense(w)))).toEqual(before)
    expect([...words].reverse().map((w) => shared.has(nounSense(w)))).toEqual([...before].reverse())
    expect(before.filter(Boolean).length).toBeGreaterThan(2) // maid, king, engineer
    expect(before.filter((b) => !b).length).toBeGreaterThan(2)
  })

  test('the cart strategy ranks the passage offering a word of the kind first', () => {
    const entries = [
      cartEntry('noise', compileCartridge(NOISE)),
      cartEntry('lightning', compileCartridge(LIGHTNING)),
    ]
    expect(searchCartridges(entries, planQuery(QUESTION), 2).map((p) => p.ref)).toEqual([
      'lightning',
      'noise',
    ])
    // The same question without its kind prefers the shorter passage.
    const plain = { ...planQuery(QUESTION), kind: [], want: 0 }
    expect(searchCartridges(entries, plain, 2).map((p) => p.ref)).toEqual(['noise', 'lightning'])
  })

  test('both strategies cite the passage offering a word of the kind first', async () => {
    const { engine } = await fixtureEngine()
    for (const [id, text] of [
      ['doc_noise', NOISE],
      ['doc_lightning', LIGHTNING],
    ] as const)
      await onboardDoc(engine, 'cor_storm', { id, title: 'Storm', filename: `${id}.txt`, text })
    for (const strategy of ['cart', 'rag'] as const) {
      const res = await engine.ask('cor_storm', { question: QUESTION, k: 2, strategy })
      expect(res.sources.map((s) => s.documentId)).toEqual(['doc_lightning', 'doc_noise'])
    }
  })
})
