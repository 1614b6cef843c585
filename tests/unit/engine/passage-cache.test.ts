import { describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { migrations } from '../../../migrations/index'
import { PassageCache } from '../../../src/features/engine/engine.passages'
import { Engine } from '../../../src/features/engine/engine.service'
import { openDatabase } from '../../../src/platform/db/db'
import { migrate } from '../../../src/platform/db/migrate'
import { passageRow } from '../../helpers/passage-rows'
import { docs, fixtureEngine, memoryStore, onboardDoc } from './fixture'

const tesla = docs[0]!
const ASK = { question: 'When was Tesla born?', strategy: 'rag' as const, k: 3 }
const moved = { ...tesla, text: tesla.text.replace('10 July 1856', '28 June 1857') }

/** The text of an answer and its sources, as one string. */
async function answered(engine: Engine, ask = ASK) {
  const r = await engine.ask('cor_1', ask)
  return JSON.stringify([r.answer, r.sources])
}
// The last document indexed: indexed again, its passages take the same ids (SQLite's next rowid).
const warsaw = docs[2]!
const ASK_WARSAW = {
  question: 'When did the Old Town become a World Heritage Site?',
  strategy: 'rag' as const,
  k: 3,
}
const rebuilt = { ...warsaw, text: warsaw.text.replace('in 1980', 'in 1981') }

describe("rag's decoded passages", () => {
  test('a passage is read and decoded once for a generation, and read again at the next', () => {
    const cache = new PassageCache(1 << 20)
    const reads: number[][] = []
    const read = (ids: number[]) => {
      reads.push(ids)
      return ids.filter((id) => id !== 9).map((id) => passageRow(id, `passage ${id} at ${reads.length}.`))
    }
    cache.open(1, 5)
    expect(cache.passages(1, [3, 2, 9], read).map((p) => p.row.id)).toEqual([3, 2])
    expect(cache.passages(1, [2, 4, 3], read).map((p) => p.row.text)).toEqual([
      'passage 2 at 1.',
      'passage 4 at 2.',
      'passage 3 at 1.',
    ])
    expect(reads).toEqual([[3, 2, 9], [4]])
    expect(cache.passages(1, [2], read)[0]!.words.terms.length).toBeGreaterThan(0)
    cache.open(1, 6)
    expect(cache.passages(1, [2], read)[0]!.row.text).toBe('passage 2 at 3.')
    cache.forget(1)
    expect(cache.bytes).toBe(0)
  })

  test('the cache stays within its bytes, least recently used out', () => {
    const cache = new PassageCache(4000)
    const read = (ids: number[]) => ids.map((id) => passageRow(id, 'word '.repeat(100)))
    cache.open(1, 1)
    for (let id = 0; id < 50; id++) {
      cache.passages(1, [id], read)
      expect(cache.bytes).toBeLessThanOrEqual(4000)
    }
    expect(cache.bytes).toBeGreaterThan(0)
  })

  test('a changed or deleted document is never answered from the kept passages', async () => {
    const { engine } = await fixtureEngine()
    expect(await answered(engine)).toContain('1856')
    expect(await answered(engine, ASK_WARSAW)).toContain('1980')
    await onboardDoc(engine, 'cor_1', rebuilt)
    await onboardDoc(engine, 'cor_1', moved)
    const after = await answered(engine)
    expect(after).toContain('1857')
    expect(after).not.toContain('1856')
    expect(await answered(engine, ASK_WARSAW)).toContain('1981')
    await engine.removeDocument('cor_1', tesla.id)
    const gone = await engine.ask('cor_1', ASK)
    expect(gone.sources.map((s) => s.documentId)).not.toContain(tesla.id)
  })

  test("another process's change to the base is seen at the next question", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'passage-cache-'))
    try {
      const path = join(dir, 'engram.db')
      const db = openDatabase(path)
      migrate(db, migrations)
      const store = memoryStore()
      const mine = new Engine({ db, store, cacheBytes: 64 << 20, now: () => 0 })
      for (const d of docs) await onboardDoc(mine, 'cor_1', d)
      expect(await answered(mine, ASK_WARSAW)).toContain('1980')
      // Another connection re-indexes the document: its passages take the same ids again.
      const other = new Engine({ db: openDatabase(path), store, cacheBytes: 64 << 20, now: () => 0 })
      await onboardDoc(other, 'cor_1', rebuilt)
      const after = await answered(mine, ASK_WARSAW)
      expect(after).toContain('1981')
      expect(after).not.toContain('1980')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
