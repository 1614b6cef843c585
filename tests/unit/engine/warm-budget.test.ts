import { describe, expect, test } from 'bun:test'
import { machineMemoryBytes, splitWarmBudget, warmBudgets } from '../../../src/features/engine/common/index'
import { Engine } from '../../../src/features/engine/engine.service'
import { docs, fixtureEngine, onboardDoc } from './fixture'

const ASK = 'What river is Warsaw on?'

const MiB = 1024 * 1024
const GiB = 1024 * MiB

describe("the warm caches' budget", () => {
  test('follows the machine: its RAM, or a smaller cgroup limit (v2, then v1)', () => {
    const files = (f: Record<string, string>) => (path: string) => f[path] ?? null
    expect(machineMemoryBytes(files({}), 8 * GiB)).toBe(8 * GiB)
    expect(machineMemoryBytes(files({ '/sys/fs/cgroup/memory.max': 'max\n' }), 8 * GiB)).toBe(8 * GiB)
    expect(machineMemoryBytes(files({ '/sys/fs/cgroup/memory.max': `${GiB}\n` }), 8 * GiB)).toBe(GiB)
    // cgroup v1 writes a number near 2^63 for no limit.
    const v1 = '/sys/fs/cgroup/memory/memory.limit_in_bytes'
    expect(machineMemoryBytes(files({ [v1]: '9223372036854771712\n' }), 8 * GiB)).toBe(8 * GiB)
    expect(machineMemoryBytes(files({ [v1]: `${512 * MiB}` }), 8 * GiB)).toBe(512 * MiB)
  })

  test('automatic (0): a sixteenth of the machine, between 32 and 256 MiB; otherwise the configured MiB', () => {
    expect(warmBudgets(0, 2 * GiB).total).toBe(128 * MiB)
    expect(warmBudgets(0, 24 * GiB).total).toBe(256 * MiB)
    expect(warmBudgets(0, 256 * MiB).total).toBe(32 * MiB)
    const b = warmBudgets(64, 24 * GiB)
    expect(b).toEqual({
      total: 64 * MiB,
      carts: 48 * MiB,
      vectors: 4 * MiB,
      postings: 8 * MiB,
      passages: 4 * MiB,
    })
  })

  test('splits a budget: three quarters to cartridges, an eighth to posting lists, a sixteenth each to vectors and passages', () => {
    expect(splitWarmBudget(800)).toEqual({ total: 800, carts: 600, vectors: 50, postings: 100, passages: 50 })
  })

  test('two bases that do not fit together: one evicts the other, and the cartridges stay within budget', async () => {
    const copy = (d: (typeof docs)[number]) => ({
      ...d,
      id: `${d.id}_2`,
      text: `${d.text}\n\nA second copy.`,
    })
    // Onboarding keeps each base's cartridges warm.
    const roomy = (await fixtureEngine()).engine
    const one = roomy.cache.bytes
    for (const d of docs) await onboardDoc(roomy, 'cor_2', copy(d))
    const both = roomy.cache.bytes
    expect(roomy.cache.size).toBe(2 * docs.length)
    // Room for either base (as measured, and as estimated from its stored size), not for both.
    const stored = Math.max(roomy.cartBytes('cor_1'), roomy.cartBytes('cor_2'))
    const carts = Math.ceil(1.2 * Math.max(one, both - one, 4 * stored))
    expect(carts).toBeLessThan(both)
    const total = Math.ceil((carts * 4) / 3) + 8
    const budget = splitWarmBudget(total).carts
    expect(budget).toBeGreaterThanOrEqual(carts)
    const { engine } = await fixtureEngine(total)
    for (const d of docs) await onboardDoc(engine, 'cor_2', copy(d))
    expect(engine.cache.bytes).toBeLessThanOrEqual(budget)
    expect(engine.cache.stats.evictions).toBeGreaterThan(0)
    // Each base fits alone: asked by cart, the first is answered by cart, its cartridges loaded again.
    const res = await engine.ask('cor_1', { question: ASK, k: 3, strategy: 'cart' })
    expect(res.strategy).toBe('cart')
    expect(res.sources[0]!.documentId).toBe('doc_warsaw')
    expect(engine.cache.stats.misses).toBeGreaterThan(0)
    expect(engine.cache.bytes).toBeLessThanOrEqual(budget)
  })

  test('a base whose cartridges exceed their budget is answered by rag, and nothing of it is kept warm', async () => {
    const { engine } = await fixtureEngine(1024)
    const res = await engine.ask('cor_1', { question: ASK, k: 3, strategy: 'cart' })
    expect(res.strategy).toBe('rag')
    expect(res.answer).toBe('Vistula River — It stands on the Vistula River in east-central Poland. [1]')
    expect(engine.cache.size).toBe(0)
    expect(engine.cache.stats.misses).toBe(0)
  })

  test("a cold base's cartridges are loaded from the store a few at a time, not all at once", async () => {
    const { db, store } = await fixtureEngine()
    const warm = new Engine({ db, store, cacheBytes: 64 * MiB, now: () => 0 })
    for (let i = 0; i < 20; i++)
      await onboardDoc(warm, 'cor_3', { ...docs[2]!, id: `doc_${i}`, text: `${docs[2]!.text}\n\nCopy ${i}.` })
    let now = 0
    let most = 0
    const counting = {
      ...store,
      getBytes: async (key: string) => {
        most = Math.max(most, ++now)
        await Promise.resolve()
        now--
        return store.getBytes(key)
      },
    }
    const cold = new Engine({ db, store: counting, cacheBytes: 64 * MiB, now: () => 0 })
    const res = await cold.ask('cor_3', { question: ASK, k: 3, strategy: 'cart' })
    expect(res.strategy).toBe('cart')
    expect(cold.cache.stats.misses).toBe(20)
    expect(most).toBe(8)
  })
})
