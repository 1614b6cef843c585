import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { PACKED_PATH } from '../../../scripts/build-synonym-table'
import {
  buildSynonyms,
  packSynonyms,
  synonymTable,
  unpackSynonyms,
  variantsOf,
} from '../../../src/features/engine/text/index'

describe('the packed synonym table', () => {
  test('the committed file is the table synonyms.txt builds (run scripts/build-synonym-table.ts)', () => {
    const built = buildSynonyms()
    const committed = new Uint8Array(readFileSync(PACKED_PATH))
    expect(Buffer.from(committed).equals(Buffer.from(packSynonyms(built)))).toBe(true)
    expect(unpackSynonyms(committed)).toEqual(built)
  })

  test('a process reads the packed table: the same table, the same variants of a question', () => {
    const built = buildSynonyms()
    expect(synonymTable()).toEqual(built)
    const related = variantsOf(
      ['kill', 'die', 'start'],
      () => [],
      (candidates) => candidates.map(() => true),
    )
    expect(related[1]).toContain('perish')
    expect(related[2]).toContain('begin')
  })

  test('a file that is not a packed table is refused', () => {
    expect(() => unpackSynonyms(new Uint8Array(32))).toThrow('bad header')
  })
})
