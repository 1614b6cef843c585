import { afterAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { migrations } from '../../../migrations/index'
import {
  REFERENCE_SENTENCES_PATH,
  renderReferenceSentences,
} from '../../../scripts/build-reference-sentences'
import type { AskExplain } from '../../../src/features/engine/compose/index'
import { type Embedder, Engine } from '../../../src/features/engine/engine.service'
import {
  EMBEDDED_SCALE,
  modelSignal,
  pastReference,
  REFERENCE_PAIRS,
  REFERENCE_SENTENCES,
  REFERENCE_TEXTS,
  referencesOf,
} from '../../../src/features/engine/support/index'
import { openDatabase } from '../../../src/platform/db/db'
import { migrate } from '../../../src/platform/db/migrate'
import { createEmbeddingsClient } from '../../../src/platform/llm/embeddings-client'
import { startEmbedStandin } from '../../helpers/embed-standin'
import { referenceVector, vector } from '../../helpers/reference-vectors'
import { memoryStore, onboardDoc } from './fixture'

const unit = (...v: number[]) => {
  const n = Math.hypot(...v)
  return Float32Array.from(v, (x) => x / n)
}

describe('how much closer a passage is than the reference sentences', () => {
  test('the committed sentences are what WordNet generates (run scripts/build-reference-sentences.ts)', () => {
    const committed = readFileSync(REFERENCE_SENTENCES_PATH, 'utf8')
    expect(committed).toBe(renderReferenceSentences())
    expect(committed).toContain('WordNet 3.1 Copyright 2011 by Princeton University')
    expect(REFERENCE_SENTENCES).toHaveLength(100)
    expect(new Set(REFERENCE_SENTENCES).size).toBe(100)
    expect(REFERENCE_PAIRS).toHaveLength(80)
    expect(REFERENCE_TEXTS).toHaveLength(260)
  })

  test('0 at the references, 1 at the question itself, null without a vector of its length', () => {
    const q = unit(1, 0, 0)
    const refs = [unit(0, 0, 1), unit(0, 1, 1)]
    const [same, ref, half, none, short] = pastReference(q, refs, [
      q,
      refs[0]!,
      unit(1, 1, 0),
      null,
      unit(1, 0),
    ])
    expect(same).toBeCloseTo(1, 6)
    expect(ref).toBeCloseTo(0, 6)
    expect(half).toBeCloseTo(Math.SQRT1_2, 6)
    expect(none).toBeNull()
    expect(short).toBeNull()
    // A model that embeds everything alike says nothing.
    expect(pastReference(q, [q, q], [q, unit(0, 1, 0)])).toEqual([null, null])
    expect(pastReference(q, [], [q])).toEqual([null])
  })

  test('the same whatever range the model keeps its cosines to', () => {
    // A second model whose vectors all share one direction: every cosine is raised towards 1.
    const raise = (v: Float32Array) => unit(0.9, ...Array.from(v, (x) => x * Math.sqrt(1 - 0.81)))
    const q = unit(1, 0, 0)
    const refs = [unit(0, 0, 1), unit(0, 1, 0)]
    const passages = [unit(1, 1, 0), unit(1, 0, 1), unit(3, 1, 1)]
    const a = pastReference(q, refs, passages)
    const b = pastReference(raise(q), refs.map(raise), passages.map(raise))
    for (const [i, x] of a.entries()) expect(b[i]!).toBeCloseTo(x!, 5)
    // The raw cosines differ a lot between the two models.
    expect(Math.abs(raise(q).reduce((s, x, i) => s + x * raise(refs[0]!)[i]!, 0))).toBeGreaterThan(0.8)
  })

  test("the reference pairs put a model on the fitted model's scale", () => {
    const refs = referencesOf(REFERENCE_TEXTS.map((t) => Float32Array.from(referenceVector(t)!)))
    expect(refs.related).toBeCloseTo(1 / Math.sqrt(5), 6)
    expect(refs.unrelated).toBeCloseTo(0, 6)
    const q = Float32Array.from(vector(0, 1))
    const [same, half, far] = modelSignal(q, refs, [
      q,
      Float32Array.from(vector(0, 1, 1)).map((x) => x / Math.SQRT2),
      Float32Array.from(vector(0, 0, 1)),
    ])
    const { related, unrelated } = EMBEDDED_SCALE
    const scale = (x: number) =>
      unrelated + ((x - refs.unrelated) * (related - unrelated)) / (refs.related - refs.unrelated)
    expect(same!).toBeCloseTo(scale(1), 6)
    expect(half!).toBeCloseTo(scale(Math.SQRT1_2), 6)
    expect(far!).toBeCloseTo(unrelated, 6)
  })

  test('the scaled signal is the same under a model whose cosines keep to another range', () => {
    const raise = (v: number[]) => {
      const w = [0.9, ...v.map((x) => x * Math.sqrt(1 - 0.81))]
      return Float32Array.from(w)
    }
    const plain = (v: number[]) => Float32Array.from([0, ...v])
    const texts = REFERENCE_TEXTS.map((t) => referenceVector(t)!)
    const q = vector(0, 1)
    const passages = [
      vector(0, 1, 1).map((x) => x / Math.SQRT2),
      vector(0, 0, 1),
      vector(0, 2, 1).map((x) => x / Math.sqrt(5)),
    ]
    const a = modelSignal(plain(q), referencesOf(texts.map(plain)), passages.map(plain))
    const b = modelSignal(raise(q), referencesOf(texts.map(raise)), passages.map(raise))
    for (const [i, x] of a.entries()) expect(b[i]!).toBeCloseTo(x!, 5)
  })

  test('a model that puts a definition no nearer its own example than another gives no signal', () => {
    const flat = referencesOf(
      REFERENCE_TEXTS.map((t) =>
        Float32Array.from(REFERENCE_SENTENCES.includes(t) ? vector(1) : vector(0, 0, 1)),
      ),
    )
    expect(modelSignal(Float32Array.from(vector(0, 1)), flat, [Float32Array.from(vector(0, 1))])).toEqual([
      null,
    ])
  })
})

// A question about when a school was founded, asked of a base of two passages.
const QUESTION = 'In what year was the Harwell school founded?'

describe('the support check with an embeddings server', () => {
  // The reference texts as reference-vectors.ts places them; the question and the founding passage
  // along axis 1, the other passage along axis 2 (far from the question).
  // (`failReferences`: the server answers 500 to a request holding them.)
  const references = new Set(REFERENCE_SENTENCES)
  let failReferences = false
  const standin = startEmbedStandin(
    (t) => referenceVector(t) ?? (t.endsWith('?') || t.includes('founded') ? vector(0, 1) : vector(0, 0, 1)),
    (input) => failReferences && input.some((t) => references.has(t)),
  )
  afterAll(() => standin.stop())
  // The founding passage is the question's own direction (1 past the references); the pairs' definitions
  // are 1/√5 from their examples: on the fitted scale, the passages land here.
  const { related, unrelated } = EMBEDDED_SCALE
  const NEAR = unrelated + (related - unrelated) * Math.sqrt(5)
  const FAR = unrelated

  async function engine() {
    const db = openDatabase(':memory:')
    migrate(db, migrations)
    const client = createEmbeddingsClient({ url: standin.url, model: 'mini', timeoutMs: 1000, batch: 16 })
    const embedder: Embedder = { model: 'mini', weight: 1, embed: (texts) => client.embed(texts) }
    const e = new Engine({ db, store: memoryStore(), cacheBytes: 1 << 24, now: () => 0, embedder })
    const docs = [
      {
        id: 'doc_a',
        title: 'Harwell',
        filename: 'a.txt',
        text: 'Harwell school was founded in the year 1871.',
      },
      { id: 'doc_b', title: 'Villages', filename: 'b.txt', text: 'Harwell is a village with a school.' },
    ]
    for (const d of docs) await onboardDoc(e, 'cor_1', d)
    await e.embedSections(e.sectionsOf('cor_1').map((s) => s.sectionId))
    return e
  }
  const referenceRequests = () =>
    standin.requests.filter((r) => r.input.includes(REFERENCE_SENTENCES[0]!)).length

  for (const strategy of ['cart', 'rag'] as const) {
    test(`${strategy}: each passage asked gets its signal, and the references are embedded once`, async () => {
      standin.setMode('ok')
      const e = await engine()
      const before = referenceRequests()
      for (let i = 0; i < 2; i++) {
        const explain: AskExplain = {}
        const res = await e.ask('cor_1', { question: QUESTION, k: 2, strategy }, explain)
        expect(res.sources.map((s) => s.documentId)).toEqual(['doc_a', 'doc_b'])
        expect(explain.model).toHaveLength(2)
        expect(explain.model![0]!).toBeCloseTo(NEAR, 5)
        expect(explain.model![1]!).toBeCloseTo(FAR, 5)
        expect(res.answered).toBe(true)
      }
      expect(referenceRequests() - before).toBe(1)
    })
  }

  test('prepared at start-up, the references are embedded before the first question, and only then', async () => {
    standin.setMode('ok')
    const e = await engine()
    const before = referenceRequests()
    const questions = () => standin.requests.filter((r) => r.input.includes(QUESTION)).length
    const asked = questions()
    await e.prepare()
    expect(referenceRequests() - before).toBe(1)
    expect(questions()).toBe(asked)
    const explain: AskExplain = {}
    await e.ask('cor_1', { question: QUESTION, k: 2, strategy: 'rag' }, explain)
    expect(referenceRequests() - before).toBe(1)
    expect(questions()).toBe(asked + 1)
    expect(explain.model![0]!).toBeCloseTo(NEAR, 5)
  })

  test('a server that fails on the references leaves the lexical check, and is asked again later', async () => {
    standin.setMode('ok')
    const e = await engine()
    failReferences = true
    const explain: AskExplain = {}
    const res = await e.ask('cor_1', { question: QUESTION, k: 2, strategy: 'rag' }, explain)
    expect(explain.model).toEqual([])
    expect(res.answered).toBe(true)
    failReferences = false
    const again: AskExplain = {}
    await e.ask('cor_1', { question: QUESTION, k: 2, strategy: 'rag' }, again)
    expect(again.model).toHaveLength(2)
    expect(again.model![0]!).toBeCloseTo(NEAR, 5)
  })
})
