import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { HYPERNYMS_PATH } from '../../../scripts/build-hypernyms'
import { SYNONYMS_PATH } from '../../../scripts/build-synonyms'
import {
  answerKind,
  kindTest,
  mostlyNoun,
  normWord,
  nounSense,
  stem,
  tokenize,
  variantsOf,
} from '../../../src/features/engine/text/index'

// The WordNet tables are packed (typed arrays over the file's text, no string or array per word);
// these compare them, on a sample, with the tables as they were read before: Maps of strings.

/** The noun table as a Map of senses and a Set of nouns mostly another part of speech. */
function mapHypernyms() {
  const senses = new Map<string, number[]>()
  const other = new Set<string>()
  const up: number[][] = []
  let parents = false
  for (const line of readFileSync(HYPERNYMS_PATH, 'utf8').split('\n')) {
    if (line === '' || line.startsWith('#')) continue
    if (line === '%') {
      parents = true
      continue
    }
    const f = line.split(' ')
    if (parents) up.push(f[0] === '-' ? [] : f.map((p) => Number.parseInt(p, 36)))
    else {
      if (f[f.length - 1] === '*') {
        f.pop()
        other.add(f[0]!)
      }
      senses.set(
        f[0]!,
        f.slice(1).map((s) => Number.parseInt(s, 36)),
      )
    }
  }
  const nounSenses = (w: string) => {
    let r = senses.get(w)
    if (!r && w.endsWith('s')) {
      if (w.endsWith('ies')) r = senses.get(`${w.slice(0, -3)}y`)
      if (!r && w.endsWith('es')) r = senses.get(w.slice(0, -2))
      r ??= senses.get(w.slice(0, -1))
    }
    return r
  }
  const sense = (w: string) => nounSenses(w)?.[0] ?? -1
  const mostlyOther = (w: string) =>
    other.has(w) || (!senses.has(w) && w.endsWith('s') && other.has(w.slice(0, -1)))
  const below = (s: number, kind: number[]): boolean => kind.includes(s) || up[s]!.some((p) => below(p, kind))
  return {
    nouns: [...senses.keys()],
    sense,
    noun: (w: string) => sense(w) >= 0 && !mostlyOther(w),
    below,
    up,
  }
}

/** The synonym table as a Map from each stem to the stems its lines link it to, in file order. */
function mapSynonyms() {
  const sets = new Map<string, Set<string>>()
  for (const line of readFileSync(SYNONYMS_PATH, 'utf8').split('\n')) {
    if (line === '' || line.startsWith('#')) continue
    const [word, ...others] = line.split(' ')
    const a = stem(normWord(word!))
    for (const o of others) {
      const b = stem(normWord(o))
      if (b !== a) sets.set(a, (sets.get(a) ?? new Set<string>()).add(b))
    }
  }
  return sets
}

const QUESTIONS = [
  'What language is spoken in Brazil?',
  'Who founded the company that built the first engine?',
  'Where did the treaty get signed?',
  'Which natural phenomenon did the tower produce?',
  'What kind of music did the orchestras play?',
  'Which NFL team won Super Bowl 50?',
  'What process produces oxygen in plants?',
]

describe('the packed WordNet tables answer as the Maps did', () => {
  const map = mapHypernyms()

  test('noun senses and mostly-noun, for nouns, their plurals and other words', () => {
    const words: string[] = []
    for (let i = 0; i < map.nouns.length; i += 37) {
      const n = map.nouns[i]!
      words.push(n, `${n}s`, `${n}es`, n.replace(/y$/, 'ies'), n.slice(0, -1), `${n}x`)
    }
    words.push('', 'constructor', '__proto__', 'café', 'produce', 'produces', 'think', 'person', 'location')
    expect(words.length).toBeGreaterThan(8000)
    const packed = words.map((w) => [nounSense(w), mostlyNoun(w)])
    expect(packed).toEqual(words.map((w) => [map.sense(w), map.noun(w)]))
    expect(packed.filter(([s]) => (s as number) >= 0).length).toBeGreaterThan(3000)
  })

  test('the kinds questions ask for, and which senses are of a kind', () => {
    let asked = 0
    for (const q of QUESTIONS) {
      const kind = answerKind(tokenize(q))
      if (kind.length === 0) continue
      asked++
      const test = kindTest(kind)
      for (let s = 0; s < map.up.length; s += 101) expect(test.has(s)).toBe(map.below(s, kind))
    }
    expect(asked).toBeGreaterThanOrEqual(5)
  })

  test('synonyms: the variants of every 5th stem the table knows', () => {
    const sets = mapSynonyms()
    const stems = [...sets.keys()].filter((_, i) => i % 5 === 0)
    expect(stems.length).toBeGreaterThan(5000)
    const all = (c: string[]) => c.map(() => true)
    for (const t of [...stems, 'zzzz', '']) {
      const [got] = variantsOf([t], () => [], all)
      const related = [...(sets.get(t) ?? [])]
      const short = t.length < 4 || /\d/.test(t)
      const prefixes = short
        ? []
        : Array.from({ length: Math.max(0, t.length - 4) }, (_, i) => t.slice(0, 4 + i))
      expect(got).toEqual([...prefixes, ...related].filter((v) => v !== t))
    }
  })
})
