import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  compileCartridge,
  fitCartridge,
  passageInputs,
  sectionPassages,
} from '../../../src/features/engine/cart/index'
import { FIXTURE_SQUAD } from '../../helpers/fixture-data'
import { docs } from './fixture'

// Onboarding indexes a section's rows from its text (sectionPassages) before its cartridge is
// compiled; the cartridge, compiled later, must hold the very same passages, or citations and
// cart's answers would point at other rows than rag's.

const articles = readdirSync(join(FIXTURE_SQUAD, 'articles'))
  .filter((f) => f.endsWith('.txt'))
  .sort()
  .map((f) => readFileSync(join(FIXTURE_SQUAD, 'articles', f), 'utf8'))

describe('sectionPassages', () => {
  test("gives the compiled cartridge's index rows, for every fixture article and document", () => {
    const texts = [...docs.map((d) => d.text), ...articles, '', 'One line without a full stop']
    expect(articles.length).toBeGreaterThan(10)
    for (const text of texts) {
      const compiled = passageInputs(compileCartridge(text, { fit: fitCartridge }))
      expect(sectionPassages(text)).toEqual(compiled)
    }
  })
})
