import { afterAll, beforeAll, describe, expect, spyOn, test } from 'bun:test'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createBenchEngine } from '../../bench/lib/bench-engine'
import { ndcgAt, pairedBootstrap, recallAt } from '../../bench/lib/ndcg'
import { Fts5Bm25, orQuery } from '../../bench/lib/retrieval-bm25'
import { findSets, loadSet } from '../../bench/lib/retrieval-sets'
import { seededRandom } from '../../bench/lib/seeded'
import { runRetrieval } from '../../bench/retrieval'

const CORPUS = [
  { id: 'd1', title: 'Whales', text: 'Blue whales are the largest animals that ever lived.' },
  { id: 'd2', title: 'Volcanoes', text: 'Magma rises through the crust and erupts as lava.' },
  { id: 'd3', title: 'Runners', text: 'Marathon running trains the heart and the lungs.' },
  { id: 'd4', title: 'Glaciers', text: 'Glaciers carve valleys as they move downhill over centuries.' },
]

/** Writes a set in BEIR's layout under `dir`. */
function writeSet(dir: string, qrels: Record<string, string>) {
  mkdirSync(join(dir, 'qrels'), { recursive: true })
  writeFileSync(
    join(dir, 'corpus.jsonl'),
    CORPUS.map((d) => `${JSON.stringify({ _id: d.id, ...d })}\n`).join(''),
  )
  const queries = [
    { _id: 'q1', text: 'Which animals are the largest that ever lived?' },
    { _id: 'q2', text: 'How does lava erupt from magma?' },
    { _id: 'q3', text: 'What do glaciers carve?' },
  ]
  writeFileSync(join(dir, 'queries.jsonl'), queries.map((q) => `${JSON.stringify(q)}\n`).join(''))
  for (const [split, rows] of Object.entries(qrels))
    writeFileSync(join(dir, 'qrels', `${split}.tsv`), `query-id\tcorpus-id\tscore\n${rows}`)
}

describe('retrieval metrics', () => {
  test('nDCG@10 is 1 for the ideal order and uses graded gains (2^gain - 1) with a log2 discount', () => {
    const judged = new Map([
      ['a', 2],
      ['b', 1],
    ])
    expect(ndcgAt(['a', 'b', 'x'], judged)).toBeCloseTo(1, 12)
    // Swapped: (1 + 3 / log2 3) / (3 + 1 / log2 3).
    expect(ndcgAt(['b', 'a'], judged)).toBeCloseTo((1 + 3 / Math.log2(3)) / (3 + 1 / Math.log2(3)), 12)
    expect(ndcgAt(['x', 'y'], judged)).toBe(0)
    expect(ndcgAt(['a'], new Map())).toBe(0)
  })

  test('only the first k documents count, for nDCG and for recall', () => {
    const judged = new Map([['z', 1]])
    const ranked = [...'abcdefghij'.split(''), 'z']
    expect(ndcgAt(ranked, judged, 10)).toBe(0)
    expect(recallAt(ranked, judged, 10)).toBe(0)
    expect(recallAt(ranked, judged, 11)).toBe(1)
    expect(recallAt(['z', 'a'], new Map([...judged, ['q', 1]]))).toBe(0.5)
  })

  test('the paired bootstrap is deterministic for a seed and brackets the mean difference', () => {
    const random = seededRandom(7)
    const a = Array.from({ length: 200 }, () => random())
    const b = a.map((x, i) => x - 0.05 + (i % 2 ? 0.02 : -0.02))
    const one = pairedBootstrap(a, b, 1000, 3)
    expect(pairedBootstrap(a, b, 1000, 3)).toEqual(one)
    expect(one.mean).toBeCloseTo(0.05, 10)
    expect(one.low).toBeLessThanOrEqual(one.mean)
    expect(one.high).toBeGreaterThanOrEqual(one.mean)
    expect(pairedBootstrap(a, a)).toEqual({ mean: 0, low: 0, high: 0 })
    expect(() => pairedBootstrap([1], [1, 2])).toThrow()
  })
})

describe('plain FTS5 bm25() baseline', () => {
  test('the query is the distinct words, quoted and OR-ed', () => {
    expect(orQuery('What "is" NOT it? what')).toBe('"what" OR "is" OR "not" OR "it"')
    expect(orQuery('?!')).toBe('')
  })

  test('ranks the document with the rare words first, and stems only with porter', () => {
    const plain = new Fts5Bm25(CORPUS, 'unicode61')
    const porter = new Fts5Bm25(CORPUS, 'porter unicode61')
    try {
      expect(plain.rank('blue whales', 2)).toEqual(['d1'])
      expect(plain.rank('runs', 10)).toEqual([])
      expect(porter.rank('runs', 10)).toEqual(['d3'])
      expect(plain.rank('', 10)).toEqual([])
    } finally {
      plain.close()
      porter.close()
    }
  })
})

describe('retrieval sets on disk', () => {
  let root: string
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'engram-retrieval-'))
    writeSet(join(root, 'parent', 'beta'), {
      test: 'q2\td2\t2\nq2\td4\t0\nq9\td1\t1\n',
      train: 'q1\td1\t1\nq3\td4\t1\n',
    })
    writeSet(join(root, 'alpha'), { test: 'q1\td1\t1\n' })
    mkdirSync(join(root, 'parent', 'not-a-set'))
  })
  afterAll(() => rmSync(root, { recursive: true, force: true }))

  test('a directory is a set or a parent of sets; each set is found once', () => {
    const sets = findSets([
      join(root, 'alpha'),
      join(root, 'parent'),
      join(root, 'parent', 'beta'),
      join(root, 'none'),
    ])
    expect(sets).toEqual([join(root, 'alpha'), join(root, 'parent', 'beta')])
  })

  test('a set loads its corpus and splits: tuning first, zero gains and unknown queries left out', () => {
    const set = loadSet(join(root, 'parent', 'beta'))
    expect(set.name).toBe('beta')
    expect(set.corpus).toHaveLength(4)
    expect(set.splits.map((s) => [s.name, s.tuning, s.queries.map((q) => q.id)])).toEqual([
      ['train', true, ['q1', 'q3']],
      ['test', false, ['q2']],
    ])
    expect([...set.splits[1]!.queries[0]!.judged]).toEqual([['d2', 2]])
  })

  test('the bench asks rag, cart and both bm25s each query and dumps the tuning split only', async () => {
    const bench = await createBenchEngine()
    const log = spyOn(console, 'log').mockImplementation(() => {})
    const dump = join(root, 'dump.jsonl')
    try {
      expect(await runRetrieval(bench.engine, { dirs: [join(root, 'parent')], dump })).toBe(true)
      expect(await runRetrieval(bench.engine, { dirs: [join(root, 'none')] })).toBe(false)
    } finally {
      log.mockRestore()
      bench.close()
    }
    const records = readFileSync(dump, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(records.map((r) => `${r.split}/${r.query}/${r.system}`)).toEqual(
      ['train/q1', 'train/q3'].flatMap((q) => ['rag', 'cart', 'bm25', 'bm25 porter'].map((s) => `${q}/${s}`)),
    )
    for (const r of records) {
      expect(r.set).toBe('beta')
      expect(r.ranked.length).toBeLessThanOrEqual(10)
      expect(new Set(r.ranked).size).toBe(r.ranked.length)
    }
    const whales = records.filter((r) => r.query === 'q1')
    for (const r of whales) {
      expect(r.relevant).toEqual({ d1: 1 })
      expect(r.ndcg).toBe(1)
      expect(r.ranked[0]).toBe('d1')
    }
  })
})
