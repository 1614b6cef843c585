import { describe, expect, test } from 'bun:test'
import { migrations } from '../../../migrations/index'
import { Engine } from '../../../src/features/engine/engine.service'
import { openDatabase } from '../../../src/platform/db/db'
import { migrate } from '../../../src/platform/db/migrate'
import { docs, memoryStore, onboardDoc, sectionInput } from './fixture'

/** An engine over a store that counts its reads and writes by key. */
function countingEngine() {
  const db = openDatabase(':memory:')
  migrate(db, migrations)
  const store = memoryStore()
  const reads: string[] = []
  const writes: string[] = []
  const { getBytes, put } = store
  store.getBytes = (key) => {
    reads.push(key)
    return getBytes(key)
  }
  store.put = (key, body, opts) => {
    writes.push(key)
    return put(key, body, opts)
  }
  const engine = new Engine({ db, store, cacheBytes: 1 << 24, now: () => 0 })
  return { engine, store, reads, writes }
}

const input = sectionInput

const snapshot = (objects: Map<string, Uint8Array>) =>
  new Map([...objects].map(([k, v]) => [k, Buffer.from(v).toString('base64')]))

describe('storing cartridges as sections are onboarded', () => {
  test('a new cartridge is written without a read; the same text onboarded again keeps it, neither read nor written', async () => {
    const { engine, store, reads, writes } = countingEngine()
    const first = await onboardDoc(engine, 'cor_1', docs[0]!)
    expect(writes).toEqual([first.cartKey])
    expect(reads).toEqual([])
    const before = snapshot(store.objects)
    const again = await onboardDoc(engine, 'cor_1', docs[0]!)
    expect(again).toEqual(first)
    expect(reads).toEqual([])
    expect(writes).toEqual([first.cartKey])
    expect(snapshot(store.objects)).toEqual(before)
  })

  test('a copy of a text in another section uses its cartridge at once: nothing compiled, read or written', async () => {
    const { engine, reads, writes } = countingEngine()
    const first = await onboardDoc(engine, 'cor_1', docs[1]!)
    const copy = await engine.indexSections([
      { ...input(docs[1]!), sectionId: 'sec_copy', documentId: 'doc_copy', baseId: 'cor_2' },
    ])
    expect(copy[0]).toMatchObject({ cartKey: first.cartKey, cartBytes: first.cartBytes })
    expect(engine.builds.left('cor_2')).toBe(0)
    expect(writes).toEqual([first.cartKey])
    expect(reads).toEqual([])
  })

  test('a key no section uses is overwritten, whatever a crash left there', async () => {
    const reference = countingEngine()
    const { cartKey } = await onboardDoc(reference.engine, 'cor_1', docs[2]!)
    const { engine, store, reads } = countingEngine()
    store.objects.set(cartKey, new Uint8Array([9, 9]))
    await onboardDoc(engine, 'cor_1', docs[2]!)
    expect(reads).toEqual([])
    expect(snapshot(store.objects)).toEqual(snapshot(reference.store.objects))
  })

  test('a base deleted while its cartridges are built leaves none of them in the store', async () => {
    const { engine, store, writes } = countingEngine()
    await engine.indexSections([input(docs[0]!)])
    expect(engine.builds.left('cor_1')).toBe(1)
    // The text is read, then the base goes (its purge finds no cartridge yet), then the compile ends.
    const step = await engine.buildDeferred('cor_1', async (id) => {
      await engine.removeBase('cor_1')
      return id === `sec_${docs[0]!.id}` ? docs[0]!.text : null
    })
    expect(step.built).toBe(0)
    expect(writes.length).toBe(1)
    expect([...store.objects.keys()]).toEqual([])
  })

  test('warming up for a run starts the compile threads once', () => {
    let warmed = 0
    const db = openDatabase(':memory:')
    migrate(db, migrations)
    const engine = new Engine({ db, store: memoryStore(), cacheBytes: 1 << 20, warmCompile: () => warmed++ })
    engine.warmUp()
    expect(warmed).toBe(1)
  })
})
