import { describe, expect, test } from 'bun:test'
import { NO_ANSWER } from '../../../src/features/engine/engine.service'
import { docs, fixtureEngine, onboardDoc } from './fixture'

const strategies = ['cart', 'rag'] as const

describe('answering from a small base', () => {
  const cases = [
    [
      'When was Tesla born?',
      '10 July 1856 — He was born on 10 July 1856 in the village of Smiljan. [1]',
      'doc_tesla',
    ],
    // A name the sentence opens with, or a lower-case phrase, does not lead (lead.ts): short_answer has it.
    [
      'Who discovered oxygen?',
      'Carl Wilhelm Scheele discovered oxygen in Uppsala by 1773. [1]',
      'doc_oxygen',
    ],
    [
      'What river is Warsaw on?',
      'Vistula River — It stands on the Vistula River in east-central Poland. [1]',
      'doc_warsaw',
    ],
    [
      'When did Tesla die?',
      '7 January 1943 — He died there on 7 January 1943, at the age of 86. [1]',
      'doc_tesla',
    ],
    ['What colour is liquid oxygen?', 'Liquid oxygen is pale blue. [1]', 'doc_oxygen'],
  ] as const
  const shorts: Record<string, string> = {
    'Who discovered oxygen?': 'Carl Wilhelm Scheele',
    'What colour is liquid oxygen?': 'pale blue',
  }
  for (const strategy of strategies)
    for (const [question, answer, doc] of cases)
      test(`${strategy} answers "${question}" with its short answer, the supporting sentence and its citation`, async () => {
        const { engine } = await fixtureEngine()
        const res = await engine.ask('cor_1', { question, k: 3, strategy })
        expect(res.answer).toBe(answer)
        expect(res.strategy).toBe(strategy)
        expect(res.sources[0]!.documentId).toBe(doc)
        // The answer leads with its short answer, then quotes the passage (or quotes it alone).
        const led = answer.replace(' [1]', '').split(' — ')
        const [short, sentence] = led.length === 2 ? led : [shorts[question], led[0]]
        expect(res.shortAnswer).toBe(short!)
        expect(res.sources[0]!.snippet).toContain(sentence!)
        expect(res.usedDocs[0]).toBe(doc)
      })

  test('both strategies return the same sources, in one shape, at most k of them', async () => {
    const { engine } = await fixtureEngine()
    const q = { question: 'Which element did Priestley publish a discovery of in 1774?', k: 2 }
    const cart = await engine.ask('cor_1', { ...q, strategy: 'cart' })
    const rag = await engine.ask('cor_1', { ...q, strategy: 'rag' })
    expect(cart.sources.length).toBeLessThanOrEqual(2)
    expect(rag.sources).toEqual(cart.sources)
    expect(Object.keys(cart.sources[0]!).sort()).toEqual([
      'documentId',
      'filename',
      'id',
      'score',
      'snippet',
      'title',
    ])
    expect(cart.sources[0]).toMatchObject({
      title: 'Oxygen',
      filename: 'oxygen.txt',
      documentId: 'doc_oxygen',
    })
    expect(cart.metrics).toMatchObject({ strategy: 'cart', k: 2, latencyMs: 0 })
  })

  test('a question with nothing in the base gets the no-answer reply and no sources', async () => {
    const { engine } = await fixtureEngine()
    for (const strategy of strategies) {
      const res = await engine.ask('cor_1', { question: 'Quantum chromodynamics?', strategy })
      expect(res.answer).toBe(NO_ANSWER)
      expect(res.sources).toEqual([])
    }
  })

  test('pinning restricts sources to the pinned documents', async () => {
    const { engine } = await fixtureEngine()
    for (const strategy of strategies) {
      const res = await engine.ask('cor_1', {
        question: 'When was the city founded or the element discovered?',
        k: 5,
        strategy,
        docIds: ['doc_warsaw'],
      })
      expect(res.sources.length).toBeGreaterThan(0)
      expect(new Set(res.sources.map((s) => s.documentId))).toEqual(new Set(['doc_warsaw']))
    }
  })

  test('a follow-up is condensed with the history before retrieval', async () => {
    const { engine } = await fixtureEngine()
    const history = [
      { role: 'user', content: 'Where did Nikola Tesla live in his later years?' },
      { role: 'assistant', content: 'In his later years Tesla lived in the Hotel New Yorker. [1]' },
    ]
    for (const strategy of strategies) {
      const res = await engine.ask('cor_1', { question: 'When did he die?', history, strategy })
      expect(res.condensedQuestion).toBe('When did Nikola Tesla die?')
      expect(res.answer).toBe('7 January 1943 — He died there on 7 January 1943, at the age of 86. [1]')
    }
  })
})

describe('deleting what is served', () => {
  test('a deleted document is never cited again, by either strategy, and its cartridge is gone', async () => {
    const { engine, store } = await fixtureEngine()
    const q = { question: 'Who discovered oxygen?', k: 5 }
    expect((await engine.ask('cor_1', { ...q, strategy: 'cart' })).sources[0]!.documentId).toBe('doc_oxygen')
    const key = engine.sectionsOfDocument('cor_1', 'doc_oxygen')[0]!.cartKey
    expect(engine.cache.get(key)).toBeDefined()
    await engine.removeDocument('cor_1', 'doc_oxygen')
    expect(engine.cache.get(key)).toBeUndefined()
    expect(store.objects.has(key)).toBe(false)
    for (const strategy of strategies) {
      const res = await engine.ask('cor_1', { ...q, strategy })
      expect(res.sources.map((s) => s.documentId)).not.toContain('doc_oxygen')
      expect(res.answer).not.toContain('Scheele')
    }
  })

  test('a cartridge shared by identical documents survives until the last of them is deleted', async () => {
    const { engine, store } = await fixtureEngine()
    const text = 'Lighthouses guide ships. The Pharos of Alexandria was built around 280 BC.'
    for (const id of ['doc_x', 'doc_y'])
      await onboardDoc(engine, 'cor_1', { id, title: 'Pharos', filename: `${id}.txt`, text })
    const key = engine.sectionsOfDocument('cor_1', 'doc_x')[0]!.cartKey
    expect(engine.sectionsOfDocument('cor_1', 'doc_y')[0]!.cartKey).toBe(key)
    await engine.removeDocument('cor_1', 'doc_x')
    expect(store.objects.has(key)).toBe(true)
    const res = await engine.ask('cor_1', {
      question: 'When was the Pharos of Alexandria built?',
      strategy: 'cart',
    })
    expect(res.sources.map((s) => s.documentId)).toEqual(['doc_y'])
    await engine.removeDocument('cor_1', 'doc_y')
    expect(store.objects.has(key)).toBe(false)
  })

  test('cart follows a base through changes and evictions: its cartridge list and route are never stale', async () => {
    const { engine } = await fixtureEngine()
    const ask = (base: string, question: string) => engine.ask(base, { question, strategy: 'cart' })
    const river = 'What river is Warsaw on?'
    const first = await ask('cor_1', river)
    // A document onboarded after a question is found by the next one.
    await onboardDoc(engine, 'cor_1', {
      id: 'doc_krakow',
      title: 'Krakow',
      filename: 'krakow.txt',
      text: 'Krakow stands on the Vistula River too. It was the capital of Poland until 1596.',
    })
    const later = await ask('cor_1', 'Until when was Krakow the capital of Poland?')
    expect(later.sources[0]?.documentId).toBe('doc_krakow')
    // Another base's cartridges evict this one's under a budget whose cartridges' share (three
    // quarters) holds about one base (a tenth more: a cold base's size is estimated, EngineCarts.fits).
    const budget = engine.cache.bytes
    const small = await fixtureEngine(Math.ceil((budget * 4 * 1.1) / 3))
    const other = docs.map((d) => ({ ...d, id: `${d.id}_2`, text: `${d.text}\n\nA second copy.` }))
    for (const d of other) await onboardDoc(small.engine, 'cor_2', d)
    const before = await small.engine.ask('cor_1', { question: river, strategy: 'cart' })
    await small.engine.ask('cor_2', { question: river, strategy: 'cart' })
    const misses = small.engine.cache.stats.misses
    const again = await small.engine.ask('cor_1', { question: river, strategy: 'cart' })
    expect(small.engine.cache.stats.misses).toBeGreaterThan(misses)
    expect(again.answer).toBe(before.answer)
    expect(again.sources).toEqual(before.sources)
    expect(before.answer).toBe(first.answer)
  })

  test('a cold engine loads cartridges from the store, and a deleted base answers nothing', async () => {
    const { engine } = await fixtureEngine(1) // a budget too small to keep anything warm
    const res = await engine.ask('cor_1', { question: 'What river is Warsaw on?', strategy: 'cart' })
    expect(res.answer).toBe('Vistula River — It stands on the Vistula River in east-central Poland. [1]')
    expect(engine.cache.size).toBe(0)
    await engine.removeBase('cor_1')
    for (const strategy of strategies)
      expect((await engine.ask('cor_1', { question: 'What river is Warsaw on?', strategy })).sources).toEqual(
        [],
      )
  })
})
