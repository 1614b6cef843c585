import { afterAll, describe, expect, test } from 'bun:test'
import { migrations } from '../../../migrations/index'
import { type Embedder, Engine } from '../../../src/features/engine/engine.service'
import { openDatabase } from '../../../src/platform/db/db'
import { migrate } from '../../../src/platform/db/migrate'
import { createEmbeddingsClient } from '../../../src/platform/llm/embeddings-client'
import { LlmUnavailableError } from '../../../src/platform/llm/server-request'
import { startEmbedStandin } from '../../helpers/embed-standin'
import { memoryStore, onboardDoc } from './fixture'

// The question and the passage that says "launched" mean the same here; everything else differs.
const standin = startEmbedStandin((t) => (/launched|\?$/.test(t) ? [1, 0] : [0, 1]))
afterAll(() => standin.stop())

const docs = [
  {
    id: 'doc_launch',
    filename: 'history.txt',
    title: 'Network history',
    text: 'ABC originally launched on October 12, 1943, as a radio network. It grew into a television network later.',
  },
  {
    id: 'doc_tour',
    filename: 'tour.txt',
    title: 'Studio tour',
    text: 'The ABC studio tour did not start until the museum opened. Visitors first see the lobby.',
  },
]
const QUESTION = 'When did ABC first start?'

function embedder(model = 'mini', failures: Error[] = []): Embedder {
  const client = createEmbeddingsClient({ url: standin.url, model, timeoutMs: 1000, batch: 8 })
  return {
    model,
    weight: 50,
    embed: (texts) => client.embed(texts),
    onQuestionFailure: (e) => failures.push(e),
  }
}

/** The documents onboarded (lexically: no embeddings server call), then embedded unless `embed` is false. */
async function base(e: Embedder | null, embed = true) {
  const db = openDatabase(':memory:')
  migrate(db, migrations)
  const engine = new Engine({ db, store: memoryStore(), cacheBytes: 1 << 24, now: () => 0, embedder: e })
  for (const d of docs) await onboardDoc(engine, 'cor_1', d)
  if (embed) await engine.embedSections(sectionIds(engine))
  return { db, engine }
}

const sectionIds = (engine: Engine) => engine.sectionsOf('cor_1').map((s) => s.sectionId)

const firstDoc = async (engine: Engine, strategy: 'cart' | 'rag') =>
  (await engine.ask('cor_1', { question: QUESTION, k: 2, strategy })).sources[0]?.documentId

describe('re-ranking by meaning (an embeddings server is configured)', () => {
  test('lexically the tour passage wins; with embeddings the passage that means the question does, on both strategies', async () => {
    standin.setMode('ok')
    const plain = await base(null)
    const meant = await base(embedder())
    for (const strategy of ['cart', 'rag'] as const) {
      expect(await firstDoc(plain.engine, strategy)).toBe('doc_tour')
      expect(await firstDoc(meant.engine, strategy)).toBe('doc_launch')
    }
    const res = await meant.engine.ask('cor_1', { question: QUESTION, k: 2, strategy: 'rag' })
    // The passage found by meaning comes first. (Whether it supports an answer is the support check's
    // call, on its own signals: this question shares one word with it, so it is declined.)
    expect(res.sources[0]!.snippet).toContain('October 12, 1943')
  })

  test("each passage's vector is stored with its model and leaves with its document", async () => {
    standin.setMode('ok')
    const { db, engine } = await base(embedder())
    const rows = () =>
      db.$client
        .query('SELECT section_id, model, length(vec) AS n FROM engine_vectors ORDER BY section_id')
        .all()
    expect(rows()).toEqual([
      { section_id: 'sec_doc_launch', model: 'mini', n: 8 },
      { section_id: 'sec_doc_tour', model: 'mini', n: 8 },
    ])
    await engine.removeDocument('cor_1', 'doc_launch')
    expect(rows()).toEqual([{ section_id: 'sec_doc_tour', model: 'mini', n: 8 }])
  })

  test('vectors of another model are never compared: the order stays lexical', async () => {
    standin.setMode('ok')
    const { db } = await base(embedder('mini'))
    const other = new Engine({ db, store: memoryStore(), cacheBytes: 1 << 24, embedder: embedder('large') })
    expect(await firstDoc(other, 'rag')).toBe('doc_tour')
  })

  test('when the question cannot be embedded, it is answered lexically and the failure reported', async () => {
    standin.setMode('ok')
    const failures: Error[] = []
    const { engine } = await base(embedder('mini', failures))
    standin.setMode('error500')
    for (const strategy of ['cart', 'rag'] as const) expect(await firstDoc(engine, strategy)).toBe('doc_tour')
    expect(failures).toHaveLength(2)
    expect(failures[0]).toBeInstanceOf(LlmUnavailableError)
    standin.setMode('ok')
  })

  test('onboarding never calls the server: a base answers lexically until its passages are embedded', async () => {
    standin.setMode('error500')
    const { db, engine } = await base(embedder(), false)
    const count = () =>
      (db.$client.query('SELECT count(*) AS n FROM engine_vectors').get() as { n: number }).n
    expect(sectionIds(engine)).toEqual(['sec_doc_launch', 'sec_doc_tour'])
    expect(count()).toBe(0)
    expect(engine.basesWithoutVectors()).toEqual(['cor_1'])
    // A server that fails stores nothing; a later try stores everything once.
    expect(await engine.embedSections(sectionIds(engine)).catch((e) => e)).toBeInstanceOf(LlmUnavailableError)
    expect(count()).toBe(0)
    standin.setMode('ok')
    for (const strategy of ['cart', 'rag'] as const) expect(await firstDoc(engine, strategy)).toBe('doc_tour')
    expect(await engine.embedSections(sectionIds(engine))).toBe(2)
    expect(await engine.embedSections(sectionIds(engine))).toBe(0)
    expect(engine.basesWithoutVectors()).toEqual([])
    // Cart's warm copy of the (missing) vectors was dropped when they were stored.
    for (const strategy of ['cart', 'rag'] as const)
      expect(await firstDoc(engine, strategy)).toBe('doc_launch')
  })

  test('cart keeps the vectors warm and does not read them again; re-onboarding or removal drops the copy', async () => {
    standin.setMode('ok')
    const { db, engine } = await base(embedder())
    expect(await firstDoc(engine, 'cart')).toBe('doc_launch')
    expect(engine.vectors.size).toBeGreaterThan(0)
    // Gone from the database behind the engine's back: rag, which reads them per question, falls back
    // to the lexical order; cart still has them.
    db.$client.exec('DELETE FROM engine_vectors')
    expect(await firstDoc(engine, 'rag')).toBe('doc_tour')
    expect(await firstDoc(engine, 'cart')).toBe('doc_launch')
    // Re-onboarded (lexically, the vectors still to come): the warm copy goes with the old passages.
    await onboardDoc(engine, 'cor_1', docs[0]!)
    expect(await firstDoc(engine, 'cart')).toBe('doc_tour')
    await engine.embedSections(sectionIds(engine))
    expect(await firstDoc(engine, 'cart')).toBe('doc_launch')
    await engine.removeDocument('cor_1', 'doc_launch')
    expect(engine.vectors.keys()).not.toContain('sec_doc_launch')
  })

  test('a vector made while its passage changed or left is not stored', async () => {
    standin.setMode('ok')
    const { db, engine } = await base(embedder(), false)
    // The server answers after the section was re-onboarded with other text and the other one deleted.
    const slow: Embedder = {
      ...embedder(),
      embed: async (texts) => {
        const vectors = await embedder().embed(texts)
        await onboardDoc(engine, 'cor_1', { ...docs[0]!, text: 'ABC changed its name in 1945.' })
        await engine.removeDocument('cor_1', 'doc_tour')
        return vectors
      },
    }
    const racing = new Engine({ db, store: memoryStore(), cacheBytes: 1 << 24, embedder: slow })
    expect(await racing.embedSections(['sec_doc_launch', 'sec_doc_tour'])).toBe(0)
    expect(db.$client.query('SELECT count(*) AS n FROM engine_vectors').get()).toEqual({ n: 0 })
    expect(engine.basesWithoutVectors()).toEqual(['cor_1'])
    expect(await engine.embedSections(sectionIds(engine))).toBe(1)
  })

  test('another model: bases embedded by it count as missing vectors, and embedding replaces them', async () => {
    standin.setMode('ok')
    const { db } = await base(embedder('mini'))
    const large = new Engine({ db, store: memoryStore(), cacheBytes: 1 << 24, embedder: embedder('large') })
    expect(large.basesWithoutVectors()).toEqual(['cor_1'])
    expect(await large.embedSections(['sec_doc_launch', 'sec_doc_tour'])).toBe(2)
    expect(db.$client.query('SELECT DISTINCT model FROM engine_vectors').all()).toEqual([{ model: 'large' }])
    expect(large.basesWithoutVectors()).toEqual([])
  })

  test('an in-process model embeds passages as they are indexed, and a re-onboarded section gets new vectors', async () => {
    const calls: string[][] = []
    const local: Embedder = {
      model: 'local',
      weight: 50,
      embed: async () => {
        throw new Error('the in-process path is used')
      },
      embedNow: (texts) => {
        calls.push(texts)
        return texts.map((t) => Float32Array.from(/launched/.test(t) ? [1, 0] : [0, 1]))
      },
    }
    const { db, engine } = await base(local, false)
    const vectors = () =>
      db.$client.query('SELECT section_id, model FROM engine_vectors ORDER BY section_id').all()
    expect(calls).toHaveLength(2)
    expect(vectors()).toEqual([
      { section_id: 'sec_doc_launch', model: 'local' },
      { section_id: 'sec_doc_tour', model: 'local' },
    ])
    expect(engine.embedsAfterOnboarding).toBe(false)
    expect(engine.basesWithoutVectors()).toEqual([])
    await onboardDoc(engine, 'cor_1', { ...docs[0]!, text: 'ABC changed its name in 1945.' })
    expect(calls[2]).toEqual(['ABC changed its name in 1945.'])
    expect(vectors()).toHaveLength(2)
    expect(engine.basesWithoutVectors()).toEqual([])
  })
})
