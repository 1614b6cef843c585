import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { SYNONYMS_PATH } from '../../../scripts/build-synonyms'
import { normWord, porterStem, stem, stemOnce } from '../../../src/features/engine/text/index'
import { FIXTURE_SQUAD } from '../../helpers/fixture-data'
import { porterStemReference } from './porter-reference'

/** Lower-case words of a text as the engine's scanner normalises them (letters, digits, ' and .). */
function wordsOf(text: string): string[] {
  return (text.match(/[\p{L}\p{N}]+(?:['’.][\p{L}\p{N}]+)*/gu) ?? []).map(normWord)
}

/** Deterministic pseudo-random strings over letters that exercise every rule (y, w, x, l, s, z, e, a leading Y). */
function fuzzWords(count: number): string[] {
  const alphabet = "aeiouyybcdgllmnprsstvwxzeeY'é1"
  let seed = 12345
  const next = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
    return seed >>> 8
  }
  const out: string[] = []
  for (let i = 0; i < count; i++) {
    const n = 1 + (next() % 12)
    let w = ''
    for (let j = 0; j < n; j++) w += alphabet[next() % alphabet.length]
    out.push(w)
  }
  return out
}

/** Short stems followed by every suffix a rule looks at, so each rule meets words it fires on and does not. */
function suffixWords(): string[] {
  const stems = [
    '',
    'a',
    'y',
    'b',
    'ya',
    'yb',
    'tr',
    'hop',
    'fil',
    'sky',
    'oat',
    'troubl',
    'generaliz',
    'cry',
    'fe',
    'rel',
    'conditi',
    'vale',
  ]
  const suffixes =
    `sses ies ss s eed ed ing y ational tional enci anci izer bli alli entli eli ousli ization ation ator
    alism iveness fulness ousness aliti iviti biliti logi icate ative alize iciti ical ful ness al ance ence er ic able
    ible ant ement ment ent ou ism ate iti ous ive ize sion tion ion e ll at bl iz`.split(/\s+/)
  return stems.flatMap((s) => suffixes.flatMap((x) => [s + x, `${s}${x}s`, `${s}${x}ed`, `${s}${x}ing`]))
}

describe('the Porter stemmer', () => {
  test('stems every word as the regular-expression version does (synonyms, articles, suffixes, fuzz)', () => {
    const synonyms = readFileSync(SYNONYMS_PATH, 'utf8')
      .split('\n')
      .filter((l) => !l.startsWith('#'))
      .flatMap((l) => l.split(' '))
      .map(normWord)
    const dir = join(FIXTURE_SQUAD, 'articles')
    const articles = readdirSync(dir).flatMap((f) => wordsOf(readFileSync(join(dir, f), 'utf8')))
    const words = new Set([...synonyms, ...articles, ...suffixWords(), ...fuzzWords(200_000)])
    expect(words.size).toBeGreaterThan(200_000)
    const differ: string[] = []
    for (const w of words) {
      const want = porterStemReference(w)
      if (porterStem(w) !== want) differ.push(`${w}: ${porterStem(w)} (want ${want})`)
    }
    expect(differ.slice(0, 20)).toEqual([])
  })

  test('the memoised stem is the unmemoised one, asked once or many times', () => {
    const words = [...new Set(wordsOf(readFileSync(join(FIXTURE_SQUAD, 'articles', 'Warsaw.txt'), 'utf8')))]
    for (let round = 0; round < 2; round++)
      for (const w of words) {
        expect(stem(w)).toBe(stemOnce(w))
        expect(stemOnce(w)).toBe(/^\d/.test(w) || w.length < 3 ? w : porterStemReference(w))
      }
  })
})
