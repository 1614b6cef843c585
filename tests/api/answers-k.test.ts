import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { TestApp } from '../helpers/app'
import { type ReadyBase, readyBase } from '../helpers/ready-base'
import { authApp, bearer, expectError } from './accounts.fixture'
import { THREE_TOPICS } from './texts.fixture'

// `k` up to 100, and `distinct_documents`: one document can no longer fill every slot.

/** A long document about the oil crisis: many passages answer the same question. */
const OIL_HISTORY = {
  path: 'oil-history.txt',
  text: Array.from(
    { length: 30 },
    (_, i) =>
      `Chapter ${i + 1}. The oil crisis of 1973 changed energy policy: the embargo raised the price of oil, ` +
      `queues formed at petrol stations, and governments rationed oil in the winter of the crisis. ` +
      'Historians still debate the embargo and its effect on prices. '.repeat(8),
  ).join('\n\n'),
}

let t: TestApp
let b: ReadyBase

beforeAll(async () => {
  t = authApp()
  b = await readyBase(t, [...THREE_TOPICS, OIL_HISTORY])
})
afterAll(() => t.close())

const ask = (json: Record<string, unknown>) =>
  t.request(`/v1/corpora/${b.corpusId}/chat`, { method: 'POST', headers: bearer(b.keys.query), json })

describe('sources per answer', () => {
  for (const strategy of ['cart', 'rag']) {
    test(`${strategy}: distinct_documents keeps each document's best passage only`, async () => {
      const question = 'How did the oil embargo of 1973 affect the price of oil?'
      const plain = (await (await ask({ question, strategy, k: 6 })).json()) as {
        sources: { document_id: string }[]
      }
      const docsOf = (s: { document_id: string }[]) => s.map((x) => x.document_id)
      // One long document fills several slots of a plain answer...
      expect(new Set(docsOf(plain.sources)).size).toBeLessThan(plain.sources.length)
      const distinct = (await (await ask({ question, strategy, k: 6, distinct_documents: true })).json()) as {
        sources: { document_id: string }[]
      }
      // ...and one each when asked, the plain answer's best document among them.
      const ids = docsOf(distinct.sources)
      expect(new Set(ids).size).toBe(ids.length)
      expect(ids.length).toBeGreaterThan(1)
      expect(ids).toContain(plain.sources[0]!.document_id)
    })
  }

  test('k goes up to 100; beyond is a 422 and nothing is asked', async () => {
    const res = await ask({ question: 'What did the oil embargo do to prices?', strategy: 'rag', k: 100 })
    expect(res.status).toBe(200)
    const body = (await res.json()) as { sources: unknown[]; metrics: { k: number } }
    // More than the old cap of 20: every passage that matches, up to k.
    expect(body.sources.length).toBeGreaterThan(20)
    expect(body.metrics.k).toBe(100)
    await expectError(await ask({ question: 'What is the Rhine?', k: 101 }), '/v1', 422, 'validation_error')
  })
})
