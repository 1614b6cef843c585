import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { parseSse } from '../../src/platform/http/sse'
import type { TestApp } from '../helpers/app'
import { type ReadyBase, readyBase, upload } from '../helpers/ready-base'
import { authApp, bearer, mintKey, rows, signUp } from './accounts.fixture'
import { THREE_TOPICS as FILES } from './texts.fixture'

let t: TestApp
let b: ReadyBase
beforeAll(async () => {
  t = authApp()
  b = await readyBase(t, FILES)
})
afterAll(() => t.close())

const chat = (json: unknown, key = b.keys.query, path = `/v1/corpora/${b.corpusId}/chat`) =>
  t.request(path, { method: 'POST', headers: bearer(key), json })

describe('chat', () => {
  for (const strategy of ['cart', 'rag'] as const) {
    test(`${strategy}: answers from the right document with a numbered citation matching its sources`, async () => {
      const res = await chat({ question: 'When did the 1973 oil crisis begin?', strategy, k: 2 })
      expect(res.status).toBe(200)
      const body = await res.json()
      expect(body.strategy).toBe(strategy)
      expect(body.answer).toContain('October 1973')
      expect(body.answer).toContain('[1]')
      expect(body.sources[0]).toMatchObject({ filename: 'oil.txt', document_id: b.docs['oil.txt'] })
      expect(body.sources[0].snippet).toContain('October 1973')
      expect(body.sources.length).toBeLessThanOrEqual(2)
      expect(body.used_docs).toContain(b.docs['oil.txt'])
      expect(body.condensed_q).toBe('When did the 1973 oil crisis begin?')
      expect(body.metrics).toMatchObject({ strategy, generator: 'extractive' })
      expect(body.metrics.latency_ms).toBeNumber()
    })
  }

  test('pinning restricts sources to the pinned documents', async () => {
    for (const strategy of ['cart', 'rag']) {
      const body = await (
        await chat({ question: 'How many people died?', strategy, doc_ids: [b.docs['rhine.txt']] })
      ).json()
      expect(body.sources.every((s: { document_id: string }) => s.document_id === b.docs['rhine.txt'])).toBe(
        true,
      )
    }
    const plague = await (
      await chat({ question: 'How many people did it kill?', doc_ids: [b.docs['plague.txt']] })
    ).json()
    expect(plague.answer).toContain('75 to 200 million')
  })

  test('pinning an id that is not in the base is a 400 on both mounts', async () => {
    const v1 = await chat({ question: 'x?', doc_ids: ['doc_nope'] })
    expect(v1.status).toBe(400)
    expect((await v1.json()).error).toMatchObject({
      code: 'unknown_documents',
      details: { unknown: ['doc_nope'] },
    })
    const frozen = await chat(
      { question: 'x?', doc_ids: ['doc_nope'] },
      b.keys.query,
      `/corpora/${b.corpusId}/chat`,
    )
    expect(frozen.status).toBe(400)
    expect((await frozen.json()).detail).toBe('These document ids are not in the base: doc_nope.')
  })

  test('a follow-up is condensed with the history into a standalone question', async () => {
    const body = await (
      await chat({
        question: 'How many people did it kill?',
        history: [
          { role: 'user', content: 'Tell me about the Black Death.' },
          { role: 'assistant', content: 'It was a bubonic plague pandemic.' },
        ],
      })
    ).json()
    expect(body.condensed_q).toContain('Black Death')
    expect(body.answer).toContain('75 to 200 million')
  })

  test('bad requests are refused: empty question, k out of range, unknown strategy', async () => {
    for (const json of [
      { question: '' },
      { question: 'x', k: 101 },
      { question: 'x', strategy: 'magic' },
      {},
    ]) {
      const res = await chat(json)
      expect(res.status).toBe(422)
      expect((await res.json()).error.code).toBe('validation_error')
    }
  })

  test('chat needs the query scope, and another workspace sees a 404', async () => {
    const res = await chat({ question: 'x?' }, b.keys.ingest)
    expect(res.status).toBe(403)
    expect((await res.json()).error.message).toBe('API key missing required scope: query')
    const other = await signUp(t)
    const key = (await mintKey(t, other.token, ['query'])).key
    expect((await chat({ question: 'x?' }, key)).status).toBe(404)
    expect(
      (await t.request(`/v1/corpora/${b.corpusId}/chat`, { method: 'POST', json: { question: 'x' } })).status,
    ).toBe(401)
  })

  test('a base that is not onboarded answers 409 corpus_not_ready', async () => {
    const res = await t.request('/v1/corpora', {
      method: 'POST',
      headers: bearer(b.adminToken),
      json: { name: 'raw' },
    })
    const id = (await res.json()).id
    await upload(t, b.adminToken, id, [{ path: 'a.txt', text: 'Something.' }])
    const v1 = await chat({ question: 'x?' }, b.keys.query, `/v1/corpora/${id}/chat`)
    expect(v1.status).toBe(409)
    expect((await v1.json()).error.code).toBe('corpus_not_ready')
    const stream = await t.request(`/corpora/${id}/chat/stream`, {
      method: 'POST',
      headers: bearer(b.keys.query),
      json: { question: 'x?' },
    })
    expect(stream.status).toBe(409)
  })

  test('answered questions are counted per base and day in the usage report', async () => {
    const before = await (await t.request('/v1/admin/usage', { headers: bearer(b.adminToken) })).json()
    await chat({ question: 'Where does the Rhine begin?' })
    const after = await (await t.request('/v1/admin/usage', { headers: bearer(b.adminToken) })).json()
    expect(JSON.stringify(after)).not.toBe(JSON.stringify(before))
    expect(await rows(t, 'usage_daily', `corpus_id = '${b.corpusId}'`)).toBe(1)
  })
})

describe('chat stream', () => {
  test('sends head, deltas and one done; the deltas join into the same answer as /chat', async () => {
    const question = 'Where does the Rhine begin?'
    const res = await t.request(`/v1/corpora/${b.corpusId}/chat/stream`, {
      method: 'POST',
      headers: bearer(b.keys.query),
      json: { question, strategy: 'rag' },
    })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toStartWith('text/event-stream')
    const events = parseSse(await res.text())
    const names = events.map((e) => e.event)
    expect(names[0]).toBe('head')
    expect(names.at(-1)).toBe('done')
    expect(names.filter((n) => n === 'done' || n === 'error')).toHaveLength(1)
    expect(names.slice(1, -1).every((n) => n === 'delta')).toBe(true)
    expect(names.length).toBeGreaterThan(3)
    const head = events[0]!.data as { head: boolean; sources: { filename: string }[]; condensed_q: string }
    expect(head.head).toBe(true)
    expect(head.sources[0]!.filename).toBe('rhine.txt')
    const streamed = events
      .filter((e) => e.event === 'delta')
      .map((e) => (e.data as { delta: string }).delta)
      .join('')
    const whole = await (await chat({ question, strategy: 'rag' })).json()
    expect(streamed).toBe(whole.answer)
    const done = events.at(-1)!.data as {
      done: boolean
      metrics: { latency_ms: number; ttft_ms: number; strategy: string }
    }
    expect(done.done).toBe(true)
    expect(done.metrics.strategy).toBe('rag')
    expect(done.metrics.ttft_ms).toBeLessThanOrEqual(done.metrics.latency_ms)
  })
})

describe('describe and feedback', () => {
  test('describe stores a one-sentence catalog description on the base', async () => {
    const res = await t.request(`/v1/corpora/${b.corpusId}/describe`, {
      method: 'POST',
      headers: bearer(b.adminToken),
    })
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body.id).toBe(b.corpusId)
    expect(body.description).toMatch(/^Fixture base holds 3 documents, covering .+\.$/)
    const base = await (
      await t.request(`/v1/corpora/${b.corpusId}`, { headers: bearer(b.adminToken) })
    ).json()
    expect(base.description).toBe(body.description)
  })

  test('feedback exists only unversioned and records the rating', async () => {
    const json = { rating: 'up', question: 'q', answer: 'a', source_ids: ['s1'] }
    const v1 = await t.request(`/v1/corpora/${b.corpusId}/feedback`, {
      method: 'POST',
      headers: bearer(b.keys.query),
      json,
    })
    expect(v1.status).toBe(404)
    const res = await t.request(`/corpora/${b.corpusId}/feedback`, {
      method: 'POST',
      headers: bearer(b.keys.query),
      json,
    })
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ status: 'recorded', id: expect.stringMatching(/^fb_/) })
    expect(await rows(t, 'answer_feedback', `corpus_id = '${b.corpusId}' AND rating = 'up'`)).toBe(1)
    const bad = await t.request(`/corpora/${b.corpusId}/feedback`, {
      method: 'POST',
      headers: bearer(b.keys.query),
      json: { rating: 'meh' },
    })
    expect(bad.status).toBe(422)
    expect(await rows(t, 'answer_feedback')).toBe(1)
  })
})

describe('deleted documents', () => {
  test('a deleted document is never cited again by either strategy', async () => {
    const t2 = authApp()
    try {
      const b2 = await readyBase(t2, FILES)
      const question = 'When did the oil crisis begin and what did OAPEC proclaim?'
      for (const strategy of ['cart', 'rag']) {
        const warm = await (
          await t2.request(`/v1/corpora/${b2.corpusId}/chat`, {
            method: 'POST',
            headers: bearer(b2.keys.query),
            json: { question, strategy },
          })
        ).json()
        expect(warm.used_docs).toContain(b2.docs['oil.txt'])
      }
      const del = await t2.request(`/v1/corpora/${b2.corpusId}/documents/${b2.docs['oil.txt']}`, {
        method: 'DELETE',
        headers: bearer(b2.keys.ingest),
      })
      expect(del.status).toBe(204)
      for (const strategy of ['cart', 'rag']) {
        const body = await (
          await t2.request(`/v1/corpora/${b2.corpusId}/chat`, {
            method: 'POST',
            headers: bearer(b2.keys.query),
            json: { question, strategy },
          })
        ).json()
        expect(body.used_docs).not.toContain(b2.docs['oil.txt'])
        expect(JSON.stringify([body.answer, body.sources])).not.toContain('OAPEC')
      }
      expect(await rows(t2, 'engine_sections', `document_id = '${b2.docs['oil.txt']}'`)).toBe(0)
    } finally {
      t2.close()
    }
  })
})
