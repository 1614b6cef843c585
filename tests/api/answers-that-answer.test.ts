import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { TestApp } from '../helpers/app'
import { FIXTURE_DOCS } from '../helpers/fixture-data'
import { startLlmStandin } from '../helpers/llm-standin'
import { type ReadyBase, readyBase } from '../helpers/ready-base'
import { authApp, bearer } from './accounts.fixture'
import { THREE_TOPICS } from './texts.fixture'

// The first questions a new user asks of real files (issue 34): "What is Haystack?" of the Haystack
// page is answered by the sentence that defines it, not by the heading that repeats the question, and
// a table's values (which species, how many penguins) are answered from its rows, with the rows cited.

const file = (path: string, type: string) => ({
  path,
  text: readFileSync(join(FIXTURE_DOCS, path), 'utf8'),
  type,
})
const HAYSTACK = file('html/deepset-ai_haystack__what_is_haystack.html', 'text/html')
const PENGUINS = file('csv/mwaskom_seaborn-data__penguins.csv', 'text/csv')

interface Chat {
  answer: string
  short_answer: string | null
  answered: boolean
  used_docs: string[]
  sources: { id: string; document_id: string; title: string; snippet: string }[]
}

let t: TestApp
let b: ReadyBase

beforeAll(async () => {
  t = authApp()
  b = await readyBase(t, [HAYSTACK, PENGUINS, ...THREE_TOPICS])
})
afterAll(() => t.close())

async function ask(question: string, strategy: string): Promise<Chat> {
  const res = await t.request(`/v1/corpora/${b.corpusId}/chat`, {
    method: 'POST',
    headers: bearer(b.keys.query),
    json: { question, strategy },
  })
  expect(res.status).toBe(200)
  return (await res.json()) as Chat
}

/** The sources an answer cites by number, in the order of the numbers. */
const cited = (r: Chat) =>
  [...new Set([...r.answer.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1])))].map((n) => r.sources[n - 1]!)

for (const strategy of ['cart', 'rag']) {
  describe(`${strategy}: answers that answer`, () => {
    test('"What is Haystack?" is answered by the sentence defining Haystack, not by the heading', async () => {
      const r = await ask('What is Haystack?', strategy)
      expect(r.answered).toBe(true)
      expect(r.answer).toContain(
        'Haystack is the open source Python framework by deepset for building custom apps with large language models (LLMs).',
      )
      expect(r.answer).not.toContain('What is Haystack?')
      expect(cited(r).map((s) => s.document_id)).toEqual([b.docs[HAYSTACK.path]!])
    })
  })

  describe(`${strategy}: tables can be asked about`, () => {
    test('"Which penguin species are in the dataset?" lists the species, citing rows of each', async () => {
      const r = await ask('Which penguin species are in the dataset?', strategy)
      expect(r.answered).toBe(true)
      expect(r.answer).toBe(
        'The table lists 3 penguin species: Adelie (152 rows) [1], Chinstrap (68 rows) [2], Gentoo (124 rows) [3].',
      )
      expect(r.short_answer).toBe('Adelie, Chinstrap, Gentoo')
      expect(r.used_docs).toEqual([b.docs[PENGUINS.path]!])
      // Each number points at the rows of its species.
      expect(r.sources.map((s) => s.document_id)).toEqual(Array(3).fill(b.docs[PENGUINS.path]!))
      expect(r.sources[0]!.snippet).toContain('species: Adelie')
      expect(r.sources[1]!.snippet).toContain('species: Chinstrap')
      expect(r.sources[2]!.snippet).toContain('species: Gentoo')
      // ...where its rows are: a species whose first rows end a passage of another is cited by the
      // passage holding most of its rows (Chinstrap's first two rows end "Rows 1–154").
      const species = ['Adelie', 'Chinstrap', 'Gentoo']
      const rowsOf = (snippet: string, name: string) => snippet.split(`species: ${name};`).length - 1
      species.forEach((name, n) => {
        const snippet = r.sources[n]!.snippet
        for (const other of species.filter((o) => o !== name))
          expect(rowsOf(snippet, name)).toBeGreaterThan(rowsOf(snippet, other))
      })
      expect(r.sources[1]!.title).not.toBe(r.sources[0]!.title)
    })

    test('"How many" is counted over the rows, and missing values are counted too', async () => {
      const rows = await ask('How many penguins are in the dataset?', strategy)
      expect(rows.answer).toBe('The table has 344 rows [1].')
      expect(rows.short_answer).toBe('344')
      expect(rows.sources[0]!.snippet).toStartWith('species: Adelie; island: Torgersen; bill_length_mm: 39.1')
      const adelie = await ask('How many Adelie penguins are there?', strategy)
      expect(adelie.short_answer).toBe('152')
      const missing = await ask('How many penguins have no recorded body mass?', strategy)
      expect(missing.answer).toStartWith('The body_mass_g is missing in 2 of the 344 rows [1]')
    })

    test('a "how many" question about text is still answered from the text', async () => {
      const r = await ask('How many people did the Black Death kill?', strategy)
      expect(r.answer).toContain('75 to 200 million')
      expect(r.used_docs).not.toContain(b.docs[PENGUINS.path]!)
    })
  })
}

describe('with a model server', () => {
  const standin = startLlmStandin(() => 'The dataset has many penguins [1].')
  let withModel: TestApp
  let m: ReadyBase
  beforeAll(async () => {
    withModel = authApp({ env: { ENGRAM_LLM_URL: standin.url, ENGRAM_LLM_MODEL: 'tiny' } })
    m = await readyBase(withModel, [PENGUINS])
  })
  afterAll(() => {
    withModel.close()
    standin.stop()
  })

  test('an answer computed from the rows is not given to the model to rewrite: its figures are in no source', async () => {
    const res = await withModel.request(`/v1/corpora/${m.corpusId}/chat`, {
      method: 'POST',
      headers: bearer(m.keys.query),
      json: { question: 'How many penguins are in the dataset?' },
    })
    const body = (await res.json()) as Chat & { metrics: { generator: string } }
    expect(body.answer).toBe('The table has 344 rows [1].')
    expect(body.metrics.generator).toBe('extractive')
    expect(standin.requests).toHaveLength(0)
  })
})
