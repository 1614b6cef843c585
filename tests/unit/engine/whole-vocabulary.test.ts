import { describe, expect, test } from 'bun:test'
import { migrations } from '../../../migrations/index'
import { EngineRepo } from '../../../src/features/engine/engine.repo'
import { searchIndex } from '../../../src/features/engine/rag/index'
import { planQuery, TermCounts } from '../../../src/features/engine/rank/index'
import { contentTerms } from '../../../src/features/engine/text/index'
import { openDatabase } from '../../../src/platform/db/db'
import { migrate } from '../../../src/platform/db/migrate'

const vocabulary = [
  { term: 'alpha', doc: 2 },
  { term: 'beta', doc: 1 },
  { term: 'betas', doc: 3 },
  { term: 'gamma', doc: 4 },
]

describe("a base's whole vocabulary, kept as its terms starting with nothing", () => {
  test('answers every count and prefix list of its generation, a term it lacks counting 0', () => {
    const counts = new TermCounts()
    counts.open(1, 'cor_a', 7)
    expect(counts.df(1, 'beta')).toBeUndefined()
    counts.keepPrefix(1, '', vocabulary)
    expect(counts.df(1, 'beta')).toBe(1)
    expect(counts.df(1, 'delta')).toBe(0)
    // As the index is read: by the term cleaned as FTS5 holds it.
    expect(counts.df(1, "be'ta")).toBe(1)
    expect(counts.prefix(1, 'bet')).toEqual(vocabulary.slice(1, 3))
    expect(counts.prefix(1, 'z')).toEqual([])
    expect(counts.prefix(1, '')).toEqual(vocabulary)
    // Another base, or the next generation of this one, reads its own.
    expect(counts.df(2, 'beta')).toBeUndefined()
    counts.open(1, 'cor_a', 8)
    expect(counts.df(1, 'delta')).toBeUndefined()
  })

  test('is not kept out of order, nor past the bound', () => {
    const counts = new TermCounts()
    counts.open(1, 'cor_a', 1)
    counts.keepPrefix(1, '', [vocabulary[1]!, vocabulary[0]!])
    expect(counts.df(1, 'delta')).toBeUndefined()
    // Kept as any other list, so it is not read again.
    expect(counts.prefix(1, '')).toEqual([vocabulary[1]!, vocabulary[0]!])
    const many = Array.from({ length: 200_001 }, (_, i) => ({
      term: `t${String(i).padStart(6, '0')}`,
      doc: 1,
    }))
    counts.keepPrefix(1, '', many)
    expect(counts.df(1, 'delta')).toBeUndefined()
  })
})

function section(repo: EngineRepo, texts: string[]): void {
  repo.putSection(
    {
      sectionId: 's1',
      baseId: 'cor_a',
      documentId: 'd1',
      title: 'Poland',
      filename: 'poland.txt',
      cartKey: 'k_s1',
      nPassages: 0,
    },
    texts.map((text, ordinal) => ({
      ordinal,
      text,
      sents: Uint32Array.from([0, text.length]),
      terms: contentTerms(text),
    })),
  )
}

function repoWith(texts: string[]): EngineRepo {
  const db = openDatabase(':memory:')
  migrate(db, migrations)
  const repo = new EngineRepo(db.$client)
  section(repo, texts)
  return repo
}

/** Makes the repo's point reads of counts and prefix lists throw. */
function noPointReads(repo: EngineRepo): void {
  // biome-ignore lint/suspicious/noExplicitAny: the repo's statements, reached for the test
  const index = (repo as any).indexOf(repo.baseKey('cor_a'))
  index.df.values = () => {
    throw new Error('a count read point by point')
  }
  const range = index.range.all.bind(index.range)
  index.range.all = (from: string, to: string) => {
    if (to !== `${repo.baseKey('cor_a')}y`) throw new Error('a prefix list read')
    return range(from, to)
  }
}

describe("rag's search of a small base", () => {
  test('reads its vocabulary whole after a few searches, then no count or prefix list point by point', () => {
    const texts = [
      'Warsaw lies on the Vistula river in Poland.',
      'Krakow was the capital of Poland before Warsaw.',
      'The Vistula flows north to the Baltic sea at Gdansk.',
    ]
    const repo = repoWith(texts)
    const search = (q: string) =>
      searchIndex(repo, 'cor_a', planQuery(q), 3, { pool: 10 }).map((p) => [p.text, p.score])
    const key = repo.baseKey('cor_a')!
    const pointReads = ['vistula', 'gdansk', 'odra', 'krakow\u2019s', 'warsaws']
    const before = [repo.documentFrequencies(key, pointReads), repo.termsWithPrefix(key, 'po')]
    const first = search('Which river flows through Warsaw?')
    for (let i = 0; i < 3; i++) search('Which river flows through Warsaw?')
    // The statements that read a count or a prefix list: not used once the vocabulary is kept.
    noPointReads(repo)
    expect([repo.documentFrequencies(key, pointReads), repo.termsWithPrefix(key, 'po')]).toEqual(before)
    expect(repo.documentFrequencies(key, ['baltic', 'sea', 'oder'])).toEqual([1, 1, 0])
    expect(repo.termsWithPrefix(key, 'kr').map((t) => t.term)).toEqual(['krakow'])
    expect(search('Which river flows through Warsaw?')).toEqual(first)
    expect(search('Where does the Vistula reach the sea?')[0]![0]).toBe(texts[2])
    repo.client.close()
  })

  test('reads it again after a change that keeps its passage count', () => {
    const repo = repoWith(['Warsaw lies on the Vistula.', 'Krakow lies on the Vistula too.'])
    for (let i = 0; i < 4; i++) searchIndex(repo, 'cor_a', planQuery('Where is Warsaw?'), 3, { pool: 10 })
    noPointReads(repo)
    const key = repo.baseKey('cor_a')!
    expect(repo.documentFrequencies(key, ['vistula', 'odra'])).toEqual([2, 0])
    section(repo, ['Wroclaw lies on the Odra.', 'Szczecin lies on the Odra too.'])
    searchIndex(repo, 'cor_a', planQuery('Where is Wroclaw?'), 3, { pool: 10 })
    expect(repo.documentFrequencies(key, ['vistula', 'odra', 'wroclaw'])).toEqual([0, 2, 1])
    expect(repo.termsWithPrefix(key, 'wr').map((t) => t.term)).toEqual(['wroclaw'])
    repo.client.close()
  })
})
