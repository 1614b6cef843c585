import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { scanWords, wordCharAt, wordEnd } from '../../../src/features/engine/text/index'
import { FIXTURE_DATA as DATA } from '../../helpers/fixture-data'

// The definition of a word the scanner writes out by hand.
const WORD = /[\p{L}\p{N}]+(?:(?:['’.][\p{L}\p{N}]+)|(?:,\d{3}))*/gu

function byRegex(text: string): string[] {
  return [...text.matchAll(WORD)].map((m) => `${m.index}:${m[0]}`)
}

function byScanner(text: string): string[] {
  const out: string[] = []
  for (let i = 0; i < text.length; ) {
    if (wordCharAt(text, i) === 0) {
      i++
      continue
    }
    const end = wordEnd(text, i)
    out.push(`${i}:${text.slice(i, end)}`)
    i = end
  }
  return out
}

describe('word scanner', () => {
  test('splits words exactly as the regular expression that defines them', () => {
    const cases = [
      "Tesla's lab, the U.S. and 3.5 kg; 1,000 or 1,0000 or 12,34 or ,123 or 1,234,567.",
      "end with a dot. end with an apostrophe' and ’curly’ rock’n’roll",
      'Gospić, Köln — naïve café 東京 Ελλάδα ١٢٣ x²',
      'astral 𝐀𝐁𝐂 letters, emoji 😀 between, lone \ud800 surrogate \udc00 here',
      "..'' ,,, trailing digits 5,12",
      '',
    ]
    for (const text of cases) expect(byScanner(text)).toEqual(byRegex(text))
  })

  test('agrees with the regular expression on the real articles and documents', () => {
    const files = [
      ...readdirSync(join(DATA, 'squad-dev/articles')).map((f) => join(DATA, 'squad-dev/articles', f)),
      ...readdirSync(join(DATA, 'docs/md')).map((f) => join(DATA, 'docs/md', f)),
    ]
    expect(files.length).toBeGreaterThan(20)
    for (const f of files) {
      const text = readFileSync(f, 'utf8')
      expect(byScanner(text)).toEqual(byRegex(text))
    }
  })

  test('a word seen before is the same info, also when scanned from another string', () => {
    const seen: string[] = []
    const infos: unknown[] = []
    for (const text of ['Edison met Tesla.', `${'x '.repeat(3)}Tesla met Edison`]) {
      scanWords(text, 0, text.length, (w, start, end) => {
        seen.push(text.slice(start, end))
        infos.push(w)
        expect(w.raw).toBe(text.slice(start, end))
      })
    }
    expect(infos[seen.indexOf('Tesla')]).toBe(infos[seen.lastIndexOf('Tesla')])
    expect(infos[seen.indexOf('Edison')]).toBe(infos[seen.lastIndexOf('Edison')])
  })

  test('a word starting before the end of the range is scanned whole', () => {
    const text = 'one two,000 three'
    const got: string[] = []
    scanWords(text, 4, 5, (_w, start, end) => got.push(text.slice(start, end)))
    expect(got).toEqual(['two,000'])
  })
})
