import { describe, expect, test } from 'bun:test'
import { WarmCache } from '../../../src/features/engine/common/index'

const cache = (budget: number) => new WarmCache<{ n: number }>({ budgetBytes: budget, sizeOf: (v) => v.n })

describe('the warm-copy cache', () => {
  test('evicts the least recently used entries to stay under its byte budget', () => {
    const c = cache(100)
    c.set('a', { n: 40 })
    c.set('b', { n: 40 })
    expect(c.get('a')?.n).toBe(40) // a is now more recent than b
    c.set('c', { n: 40 })
    expect(c.keys()).toEqual(['a', 'c'])
    expect(c.bytes).toBe(80)
    expect(c.stats.evictions).toBe(1)
  })

  test('its version moves on every store and removal, never on a read', () => {
    const c = cache(100)
    const v0 = c.version
    c.set('a', { n: 40 })
    const v1 = c.version
    expect(v1).toBeGreaterThan(v0)
    c.get('a')
    c.get('missing')
    expect(c.version).toBe(v1)
    c.set('b', { n: 70 }) // evicts a
    expect(c.keys()).toEqual(['b'])
    const v2 = c.version
    expect(v2).toBeGreaterThan(v1)
    c.delete('b')
    expect(c.version).toBeGreaterThan(v2)
    const v3 = c.version
    c.delete('b')
    c.set('huge', { n: 1000 }) // never kept: nothing changed
    expect(c.version).toBe(v3)
  })

  test('an entry larger than the whole budget is never kept', async () => {
    const c = cache(100)
    c.set('small', { n: 10 })
    expect(await c.getOrLoad('huge', async () => ({ n: 500 }))).toEqual({ n: 500 })
    expect(c.keys()).toEqual(['small'])
  })

  test('concurrent loads of one key share one load, and later gets are hits', async () => {
    const c = cache(100)
    let loads = 0
    const load = async () => {
      loads++
      return { n: 5 }
    }
    const [x, y] = await Promise.all([c.getOrLoad('k', load), c.getOrLoad('k', load)])
    expect(x).toBe(y)
    expect(loads).toBe(1)
    await c.getOrLoad('k', load)
    expect(loads).toBe(1)
    expect(c.stats).toEqual({ hits: 1, misses: 1, evictions: 0 })
  })

  test('a key deleted while it loads is handed back but not kept', async () => {
    const c = cache(100)
    let release: (v: { n: number }) => void = () => {}
    const pending = c.getOrLoad('k', () => new Promise((r) => (release = r)))
    c.delete('k')
    release({ n: 5 })
    expect(await pending).toEqual({ n: 5 })
    expect(c.get('k')).toBeUndefined()
    expect(c.bytes).toBe(0)
  })
})
