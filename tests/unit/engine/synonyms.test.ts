import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { renderSynonyms, SYNONYMS_PATH } from '../../../scripts/build-synonyms'
import { normWord } from '../../../src/features/engine/text/index'

describe('the synonym table and word normalisation', () => {
  test('the committed synonym table is what WordNet generates (run scripts/build-synonyms.ts)', () => {
    const committed = readFileSync(SYNONYMS_PATH, 'utf8')
    expect(committed).toBe(renderSynonyms())
    expect(committed).toContain('WordNet 3.1 Copyright 2011 by Princeton University')
    expect(committed).toMatch(/^begin get start commence$/m)
  })

  test('words that name Object.prototype members are ordinary words', () => {
    for (const w of ['constructor', '__proto__', 'hasOwnProperty', 'toString']) {
      expect(normWord(w)).toBe(w.toLowerCase())
    }
    expect(normWord('began')).toBe('begin')
  })
})
