import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { TestApp } from '../helpers/app'
import { type FixtureFile, type ReadyBase, readyBase } from '../helpers/ready-base'
import { authApp, bearer } from './accounts.fixture'
import { THREE_TOPICS } from './texts.fixture'

// A base's answers depend on that base alone: another workspace indexing many passages with the
// same words changes nothing in them, byte for byte (issue 22, defect 1: FTS5's BM25 takes its
// passage count and average length from its table, so every base has a table of its own).

const MINE: FixtureFile[] = [
  ...THREE_TOPICS,
  {
    path: 'energy.txt',
    text:
      'Energy prices rose sharply after the oil embargo. Many countries built nuclear plants and ' +
      'promoted coal to reduce their dependence on imported oil. The crisis also changed car design.',
  },
  {
    path: 'rivers.txt',
    text:
      'Rivers such as the Danube and the Rhine carry goods across Europe. Barges on the Rhine move ' +
      'coal, grain and oil products between Rotterdam and Basel.',
  },
]

/**
 * Enough passages on the same words that rag's candidate pool (the 40 best by BM25) must choose
 * among them, in lengths that vary so BM25's length normalisation matters.
 */
const NOTES: FixtureFile[] = Array.from({ length: 30 }, (_, i) => ({
  path: `notes-${i}.txt`,
  text: Array.from(
    { length: 2 + (i % 3) },
    (_, j) =>
      `Note ${i}.${j} on the oil crisis: ` +
      'the embargo, oil prices and the price of energy. '.repeat(1 + ((i + j) % 4)) +
      'Barges on the Rhine, coal and grain. '.repeat((i * j) % 3) +
      'Other matters of the year. '.repeat(1 + (j % 5)),
  ).join('\n\n'),
}))

/** Many long passages on the same words, as a busy neighbour might index. */
const THEIRS: FixtureFile[] = Array.from({ length: 40 }, (_, i) => ({
  path: `neighbour-${i}.txt`,
  text: Array.from(
    { length: 1 + (i % 5) },
    () =>
      `Report ${i}: oil prices, the embargo, the crisis, the plague and the Rhine river are discussed ` +
      'at length here, with coal, grain, barges and energy policy in every paragraph of the report. '.repeat(
        6,
      ),
  ).join('\n\n'),
}))

const QUESTIONS = [
  'When did the oil crisis begin?',
  'What did the embargo do to oil prices?',
  'Where does the Rhine flow?',
  'What carried the plague?',
  'What do barges on the Rhine carry?',
]

let t: TestApp
let mine: ReadyBase

beforeAll(async () => {
  t = authApp()
  mine = await readyBase(t, [...MINE, ...NOTES], 'Mine')
})
afterAll(() => t.close())

/** Every answer of the base to the questions, both strategies, as the bytes the client receives. */
async function answers(): Promise<string[]> {
  const out: string[] = []
  for (const strategy of ['rag', 'cart']) {
    for (const question of QUESTIONS) {
      const res = await t.request(`/v1/corpora/${mine.corpusId}/chat`, {
        method: 'POST',
        headers: bearer(mine.keys.query),
        json: { question, strategy, k: 10 },
      })
      const body = (await res.json()) as { answer: string; sources: unknown[]; used_docs: string[] }
      out.push(JSON.stringify([body.answer, body.sources, body.used_docs]))
    }
  }
  return out
}

test("a base's answers and source scores do not move when another workspace indexes the same words", async () => {
  const before = await answers()
  expect(before.some((a) => a.includes('OAPEC'))).toBe(true)
  const theirs = await readyBase(t, THEIRS, 'Neighbour')
  expect(await answers()).toEqual(before)
  // Each base's index is a table of its own, and deleting the base drops it.
  const tables = () =>
    t.db.$client
      .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table'")
      .all()
      .map((r) => r.name)
      .filter((n) => /^engine_fts_\d+$/.test(n))
  expect(tables()).toHaveLength(2)
  const del = await t.request(`/v1/corpora/${theirs.corpusId}`, {
    method: 'DELETE',
    headers: bearer(theirs.adminToken),
  })
  expect(del.status).toBeLessThan(300)
  expect(tables()).toHaveLength(1)
  expect(await answers()).toEqual(before)
})
