import { afterAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { migrations } from '../../../migrations/index'
import { ENCODER_REFERENCES_PATH, renderEncoderReferences } from '../../../scripts/build-encoder-references'
import type { AskExplain } from '../../../src/features/engine/compose/index'
import { Engine } from '../../../src/features/engine/engine.service'
import {
  ENCODER_BAND,
  ENCODER_MAX_CHARS,
  ENCODER_REFERENCES,
  EncoderCache,
  type EncoderEmbed,
  EncoderThread,
  encoderSignals,
  modelSignal,
  REFERENCE_TEXTS,
  referencesOf,
  SUPPORT_THRESHOLD,
  unsure,
} from '../../../src/features/engine/support/index'
import { openDatabase } from '../../../src/platform/db/db'
import { migrate } from '../../../src/platform/db/migrate'
import { memoryStore, onboardDoc, POLICIES } from './fixture'

/** A unit vector of the encoder's 512 dimensions along one axis. */
const axis = (i: number) => {
  const v = new Float32Array(512)
  v[i] = 1
  return v
}

describe('the built-in encoder in the support check', () => {
  const encoder = new EncoderThread({ idleMs: 1000 })
  afterAll(() => encoder.close())
  const vectors: Float32Array[] = []

  test("the committed reference file is the encoder's (run scripts/build-encoder-references.ts)", async () => {
    const committed = JSON.parse(readFileSync(ENCODER_REFERENCES_PATH, 'utf8'))
    const made = JSON.parse(
      await renderEncoderReferences(async (texts) => {
        const v = await encoder.embed(texts)
        vectors.push(...v)
        return v
      }),
    )
    expect(made.texts).toBe(REFERENCE_TEXTS.length)
    expect(committed.texts).toBe(REFERENCE_TEXTS.length)
    // The WebAssembly backend may round differently on another CPU: equal to 4 decimals.
    expect(made.related).toBeCloseTo(committed.related, 4)
    expect(made.unrelated).toBeCloseTo(committed.unrelated, 4)
    expect(made.mean).toHaveLength(512)
    for (const [i, x] of made.mean.entries()) expect(x).toBeCloseTo(committed.mean[i], 4)
  })

  test('the mean stands for the reference sentences: the signal is the one all of them give', async () => {
    const full = referencesOf(vectors)
    const [q, ...passages] = await encoder.embed([
      'Who designed the first reactor at Harwell?',
      'The first reactor at Harwell was designed by a team under John Cockcroft.',
      'Harwell is a village in Oxfordshire with a school and a church.',
    ])
    const fromFile = modelSignal(q!, ENCODER_REFERENCES, passages)
    const fromAll = modelSignal(q!, full, passages)
    for (const [i, x] of fromFile.entries()) expect(x!).toBeCloseTo(fromAll[i]!, 3)
    // The passage that answers is the nearer.
    expect(fromFile[0]!).toBeGreaterThan(fromFile[1]! + 0.1)
  })

  test('the band: below it a question is declined and above it answered whatever the encoder says', () => {
    expect(ENCODER_BAND.low).toBeLessThan(SUPPORT_THRESHOLD)
    expect(ENCODER_BAND.high).toBeGreaterThan(SUPPORT_THRESHOLD)
    expect([0, 0.149, 0.15, 0.28, 0.6, 0.601, 1].map(unsure)).toEqual([
      false,
      false,
      true,
      true,
      true,
      false,
      false,
    ])
  })

  test("each passage's signal from the question's and its vectors; none when the encoder fails or answers short", async () => {
    const embed: EncoderEmbed = async (texts) => texts.map((t) => (t.includes('near') ? axis(0) : axis(1)))
    const signals = await encoderSignals(embed, 'near question', ['near passage', 'other passage'])
    expect(signals).toEqual(modelSignal(axis(0), ENCODER_REFERENCES, [axis(0), axis(1)]))
    expect(signals[0]!).toBeGreaterThan(0.9)
    expect(await encoderSignals(() => Promise.reject(new Error('down')), 'q', ['p'])).toEqual([])
    expect(await encoderSignals(async () => [axis(0)], 'q', ['p'])).toEqual([])
  })

  test('the encoder is given at most ENCODER_MAX_CHARS of each text', async () => {
    const given: string[][] = []
    const embed: EncoderEmbed = async (texts) => {
      given.push(texts)
      return texts.map(() => axis(0))
    }
    await encoderSignals(embed, 'q'.repeat(4000), ['short passage', 'p'.repeat(ENCODER_MAX_CHARS + 1)])
    expect(given[0]!.map((t) => t.length)).toEqual([ENCODER_MAX_CHARS, 13, ENCODER_MAX_CHARS])
  })
})

describe("the encoder's cache", () => {
  /** An encoder stand-in: each text's vector is [its length, 1], and every request is recorded. */
  function recording() {
    const asked: string[][] = []
    const embed: EncoderEmbed = async (texts) => {
      asked.push(texts)
      return texts.map((t) => Float32Array.of(t.length, 1))
    }
    return { asked, embed }
  }

  test('a text is embedded once per base; only the missing ones are asked for, in one request', async () => {
    const { asked, embed } = recording()
    const cache = new EncoderCache(embed)
    const first = await cache.vectorsFor('cor_a', ['question', 'passage one', 'passage one'])
    expect(first.map((v) => v[0])).toEqual([8, 11, 11])
    expect(asked).toEqual([['question', 'passage one']])
    const second = await cache.vectorsFor('cor_a', ['passage one', 'another question'])
    expect(second.map((v) => v[0])).toEqual([11, 16])
    expect(asked[1]).toEqual(['another question'])
    // Another base's texts are its own: nothing of cor_a answers for cor_b.
    await cache.vectorsFor('cor_b', ['question'])
    expect(asked[2]).toEqual(['question'])
    expect(cache.size).toBe(4)
  })

  test('past its capacity, the least recently used vectors go first', async () => {
    const { asked, embed } = recording()
    const cache = new EncoderCache(embed, 2)
    await cache.vectorsFor('b', ['a'])
    await cache.vectorsFor('b', ['bb'])
    await cache.vectorsFor('b', ['a'])
    await cache.vectorsFor('b', ['ccc'])
    expect(cache.size).toBe(2)
    await cache.vectorsFor('b', ['a'])
    await cache.vectorsFor('b', ['bb'])
    expect(asked).toEqual([['a'], ['bb'], ['ccc'], ['bb']])
  })

  test('a failed or short answer rejects and keeps nothing', async () => {
    const failing = new EncoderCache(() => Promise.reject(new Error('the encoder is busy')))
    await expect(failing.vectorsFor('b', ['q'])).rejects.toThrow('busy')
    expect(failing.size).toBe(0)
    const short = new EncoderCache(async () => [Float32Array.of(1)])
    await expect(short.vectorsFor('b', ['q', 'p'])).rejects.toThrow('another number')
    expect(short.size).toBe(0)
  })
})

// Most of its words are in the policies, not what it asks: the word-level check is unsure of them,
// and takes the first for an answer, not the second.
const UNSURE = 'Where is sick leave booked?'
const UNSURE_DECLINED = 'Who approves the travel budget?'

describe('asking the built-in encoder when the word-level check is unsure', () => {
  /** An encoder stand-in that puts the question on axis 0 and every passage on `passageAxis`, and records requests. */
  function standin(passageAxis: number | 'fail') {
    const asked: string[][] = []
    const embed: EncoderEmbed = async (texts) => {
      asked.push(texts)
      if (passageAxis === 'fail') throw new Error('the encoder is off')
      return texts.map((_, i) => (i === 0 ? axis(0) : axis(passageAxis)))
    }
    return { asked, embed }
  }
  async function engine(encoder: EncoderEmbed | null) {
    const db = openDatabase(':memory:')
    migrate(db, migrations)
    const e = new Engine({ db, store: memoryStore(), cacheBytes: 1 << 24, now: () => 0, encoder })
    for (const d of POLICIES) await onboardDoc(e, 'cor_1', d)
    return e
  }

  for (const strategy of ['cart', 'rag'] as const) {
    test(`${strategy}: an unsure question is decided by the encoder's meaning, with the passages it may quote`, async () => {
      const plain = await (await engine(null)).ask('cor_1', { question: UNSURE, strategy })
      expect(unsure(plain.metrics.support)).toBe(true)
      expect(plain.answered).toBe(true)

      const far = standin(1)
      const explain: AskExplain = {}
      const farEngine = await engine(far.embed)
      const declined = await farEngine.ask('cor_1', { question: UNSURE, strategy }, explain)
      expect(declined.answered).toBe(false)
      expect(declined.metrics.support).toBeLessThan(SUPPORT_THRESHOLD)
      expect(far.asked).toHaveLength(1)
      expect(far.asked[0]![0]).toBe(UNSURE)
      // The passages themselves, as the sources quote them, not the sections holding them.
      expect(far.asked[0]!.slice(1)).toEqual(declined.sources.slice(0, 3).map((s) => s.snippet))
      expect(far.asked[0]!.some((t) => t.includes('paid leave') && !t.includes('office'))).toBe(true)
      expect(explain.model).toHaveLength(far.asked[0]!.length - 1)
      // Asked again, the question and its passages are kept: the encoder is not asked twice.
      expect(await farEngine.ask('cor_1', { question: UNSURE, strategy })).toEqual(declined)
      expect(far.asked).toHaveLength(1)

      const near = standin(0)
      const answered = await (await engine(near.embed)).ask('cor_1', { question: UNSURE, strategy })
      expect(answered.answered).toBe(true)
      expect(answered.metrics.support).toBeGreaterThan(plain.metrics.support)
      // Near, a question the words alone would decline is answered.
      const words = await (await engine(null)).ask('cor_1', { question: UNSURE_DECLINED, strategy })
      expect(unsure(words.metrics.support) && !words.answered).toBe(true)
      const rescued = await (await engine(near.embed)).ask('cor_1', { question: UNSURE_DECLINED, strategy })
      expect(rescued.answered).toBe(true)
      expect(rescued.answer).toContain('approved by the team lead')

      // An encoder that fails leaves the word-level answer.
      const failing = standin('fail')
      const same = await (await engine(failing.embed)).ask('cor_1', { question: UNSURE, strategy })
      expect(failing.asked).toHaveLength(1)
      expect(same).toEqual(plain)
    })

    test(`${strategy}: a question the word-level check is sure of is not asked`, async () => {
      const far = standin(1)
      const e = await engine(far.embed)
      const sure = await e.ask('cor_1', { question: 'Who books flights for employees?', strategy })
      const none = await e.ask('cor_1', { question: 'What is the capital of Mongolia?', strategy })
      expect(sure.answered).toBe(true)
      expect(none.answered).toBe(false)
      expect(far.asked).toEqual([])
    })
  }
})
