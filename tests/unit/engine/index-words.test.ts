import { describe, expect, test } from 'bun:test'
import { migrations } from '../../../migrations/index'
import { compileSection } from '../../../src/features/engine/cart/index'
import type { PassageRow } from '../../../src/features/engine/engine.rows'
import { Engine } from '../../../src/features/engine/engine.service'
import { encodePassageWords, scanPassageWords } from '../../../src/features/engine/rank/index'
import { openDatabase } from '../../../src/platform/db/db'
import { migrate } from '../../../src/platform/db/migrate'
import { docs, memoryStore, sectionInput } from './fixture'

// A run indexes text only: the passages' stored words (rag's ranking reads them instead of scanning
// each candidate's text) are made with the cartridge on the compile threads and stored by the
// deferred build; until then rag reads the text, with the same answers.

function engineOf(compile?: typeof compileSection) {
  const db = openDatabase(':memory:')
  migrate(db, migrations)
  const engine = new Engine({
    db,
    store: memoryStore(),
    cacheBytes: 1 << 24,
    now: () => 0,
    ...(compile ? { compile: async (text: string) => compile(text) } : {}),
  })
  return { db, engine }
}

const inputs = docs.map(sectionInput)

type Row = Pick<PassageRow, 'text' | 'sents' | 'words'>
const rows = (db: ReturnType<typeof openDatabase>) =>
  db.$client
    .query('SELECT text, sents, words FROM engine_passages ORDER BY section_id, ordinal')
    .all() as Row[]
/** What the stored words of a passage row must be: its own text and sentence spans scanned. */
const expected = (r: Row) =>
  Buffer.from(encodePassageWords(scanPassageWords(r.text, new Uint32Array(Uint8Array.from(r.sents).buffer))))

const QUESTIONS = ['When was Tesla born?', 'Who discovered oxygen?', 'What river is Warsaw on?']

describe("a run's stored passage words", () => {
  test('wait for the deferred build, which stores those the compile made; rag answers the same before and after', async () => {
    for (const compile of [compileSection, undefined]) {
      const { db, engine } = engineOf(compile)
      await engine.indexSections(inputs)
      const indexed = rows(db)
      expect(indexed.length).toBe(3)
      expect(indexed.every((r) => r.words === null)).toBe(true)
      const ask = (question: string) => engine.ask('cor_1', { question, strategy: 'rag', k: 3 })
      const before = await Promise.all(QUESTIONS.map(ask))
      while (engine.builds.left('cor_1') > 0)
        await engine.buildDeferred(
          'cor_1',
          async (id) => inputs.find((i) => i.sectionId === id)?.text ?? null,
        )
      const built = rows(db)
      for (const r of built) expect(Buffer.from(r.words!)).toEqual(expected(r))
      const after = await Promise.all(QUESTIONS.map(ask))
      expect(after.map((a) => [a.answer, a.sources])).toEqual(before.map((b) => [b.answer, b.sources]))
    }
  })

  test('a text whose cartridge is already built gets its words at once, with no deferred build', async () => {
    const { db, engine } = engineOf(compileSection)
    await engine.onboardSection(inputs[0]!)
    await engine.indexSections([{ ...inputs[0]!, sectionId: 'sec_copy', documentId: 'doc_copy' }])
    expect(engine.builds.left('cor_1')).toBe(0)
    const all = rows(db)
    expect(all.length).toBeGreaterThan(0)
    for (const r of all) expect(Buffer.from(r.words!)).toEqual(expected(r))
  })
})
