import { afterEach, describe, expect, test } from 'bun:test'
import { migrations } from '../../../migrations/index'
import { PassageCache } from '../../../src/features/engine/engine.passages'
import type { PassageRow } from '../../../src/features/engine/engine.rows'
import { type Embedder, Engine } from '../../../src/features/engine/engine.service'
import { VectorRepo } from '../../../src/features/engine/engine.vectors.repo'
import { openDatabase } from '../../../src/platform/db/db'
import { migrate } from '../../../src/platform/db/migrate'
import { passageRow } from '../../helpers/passage-rows'
import { memoryStore, onboardDoc } from './fixture'

// The question and a passage that says "launched" mean the same here; everything else differs.
const meaningOf = (t: string) => new Float32Array(/launched|\?$/.test(t) ? [1, 0] : [0, 1])
const embedder: Embedder = { model: 'mini', weight: 50, embed: async (texts) => texts.map(meaningOf) }

const launch = {
  id: 'doc_launch',
  filename: 'history.txt',
  title: 'Network history',
  text: 'ABC originally launched on October 12, 1943, as a radio network. It grew into a television network later.',
}
const tour = {
  id: 'doc_tour',
  filename: 'tour.txt',
  title: 'Studio tour',
  text: 'The ABC studio tour did not start until the museum opened. Visitors first see the lobby.',
}
const ASK = { question: 'When did ABC first start?', k: 2, strategy: 'rag' as const }

// Counts the database reads of one passage's vector (rag's path before its vectors were kept).
const realVector = VectorRepo.prototype.vector
let reads = 0
VectorRepo.prototype.vector = function (this: VectorRepo, ...args: Parameters<VectorRepo['vector']>) {
  reads++
  return realVector.apply(this, args)
}
afterEach(() => {
  reads = 0
})

async function base(embed = true) {
  const db = openDatabase(':memory:')
  migrate(db, migrations)
  const engine = new Engine({ db, store: memoryStore(), cacheBytes: 1 << 24, now: () => 0, embedder })
  for (const d of [launch, tour]) await onboardDoc(engine, 'cor_1', d)
  if (embed) await engine.embedSections(sectionIds(engine))
  return { db, engine }
}
const sectionIds = (engine: Engine) => engine.sectionsOf('cor_1').map((s) => s.sectionId)
const sources = async (engine: Engine) => (await engine.ask('cor_1', ASK)).sources.map((s) => s.documentId)

const ranked = (r: PassageRow) => ({ text: r.text, sectionId: r.sectionId, ordinal: r.ordinal })

describe("rag's candidate vectors, kept with its pooled passages", () => {
  test('read from the database once for a generation of the base, not on every question', async () => {
    const { engine } = await base()
    expect(await sources(engine)).toEqual(['doc_launch', 'doc_tour'])
    expect(reads).toBeGreaterThan(0)
    reads = 0
    for (let i = 0; i < 3; i++) expect(await sources(engine)).toEqual(['doc_launch', 'doc_tour'])
    expect(reads).toBe(0)
  })

  test('a vector stored after its passage was pooled (no new generation) is used at the next question', async () => {
    const { engine } = await base(false)
    expect(await sources(engine)).toEqual(['doc_tour', 'doc_launch'])
    await engine.embedSections(sectionIds(engine))
    expect(await sources(engine)).toEqual(['doc_launch', 'doc_tour'])
  })

  test("a changed or deleted document's vector is never served from the pool", async () => {
    const { db, engine } = await base()
    expect(await sources(engine)).toEqual(['doc_launch', 'doc_tour'])
    // The tour, indexed last, is indexed again (its passage takes the same id) and now means the
    // question too: the vector kept for that id before is the old text's.
    await onboardDoc(engine, 'cor_1', {
      ...tour,
      text: tour.text.replace('did not start until', 'launched when'),
    })
    await engine.embedSections(sectionIds(engine))
    const fresh = new Engine({ db, store: memoryStore(), cacheBytes: 1 << 24, now: () => 0, embedder })
    expect(await sources(engine)).toEqual(await sources(fresh))
    expect(await sources(engine)).toEqual(['doc_tour', 'doc_launch'])
    await engine.removeDocument('cor_1', 'doc_tour')
    expect(await sources(engine)).toEqual(['doc_launch'])
  })

  test('kept only while the kept row is the one ranked, only when it exists, counted in the bytes', () => {
    const cache = new PassageCache(1 << 20)
    let n = 0
    const vec = () => {
      n++
      return new Float32Array(8).fill(n)
    }
    cache.open(1, 1)
    const [p] = cache.passages(1, [7], (ids) => ids.map((id) => passageRow(id, 'first text.')))
    const before = cache.bytes
    expect(cache.vector(7, ranked(p!.row), 'm', vec)?.[0]).toBe(1)
    expect(cache.bytes).toBe(before + 32 + 80)
    expect(cache.vector(7, ranked(p!.row), 'm', vec)?.[0]).toBe(1)
    expect(n).toBe(1)
    // Another model's vector is read, and replaces it.
    expect(cache.vector(7, ranked(p!.row), 'other', vec)?.[0]).toBe(2)
    expect(cache.bytes).toBe(before + 32 + 80)
    // None yet: read every time.
    let none = 0
    const missing = () => {
      none++
      return null
    }
    cache.vector(7, ranked(p!.row), 'late', missing)
    cache.vector(7, ranked(p!.row), 'late', missing)
    expect(none).toBe(2)
    // A new generation: the same id is another passage; the old one's ranking never gets its vector.
    cache.open(1, 2)
    const [q] = cache.passages(1, [7], (ids) => ids.map((id) => passageRow(id, 'second text.')))
    expect(cache.vector(7, ranked(p!.row), 'other', vec)?.[0]).toBe(3)
    expect(cache.vector(7, ranked(q!.row), 'other', vec)?.[0]).toBe(4)
    expect(cache.vector(7, ranked(q!.row), 'other', vec)?.[0]).toBe(4)
    expect(cache.vector(7, { ...ranked(q!.row), ordinal: 1 }, 'other', vec)?.[0]).toBe(5)
    // A passage not kept (never pooled) is read each time.
    expect(cache.vector(8, ranked(passageRow(8, 'x')), 'other', vec)?.[0]).toBe(6)
    expect(cache.vector(8, ranked(passageRow(8, 'x')), 'other', vec)?.[0]).toBe(7)
  })

  test('vectors stay within the bytes, least recently used passages out', () => {
    const cache = new PassageCache(20_000)
    cache.open(1, 1)
    for (let id = 0; id < 200; id++) {
      const [p] = cache.passages(1, [id], (ids) => ids.map((i) => passageRow(i, `passage ${i}.`)))
      cache.vector(id, ranked(p!.row), 'm', () => new Float32Array(384))
      expect(cache.bytes).toBeLessThanOrEqual(20_000)
    }
  })
})
