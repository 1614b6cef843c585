import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { parseSse } from '../../src/platform/http/sse'
import type { TestApp } from '../helpers/app'
import { startLlmStandin } from '../helpers/llm-standin'
import { type ReadyBase, readyBase } from '../helpers/ready-base'
import { authApp, bearer } from './accounts.fixture'
import { TWO_SENTENCES as FILES } from './texts.fixture'

describe('a saturated engine', () => {
  let t: TestApp
  let b: ReadyBase
  beforeAll(async () => {
    t = authApp({ env: { ENGRAM_MAX_CONCURRENT_QUERIES: '1', ENGRAM_MAX_QUEUED_QUERIES: '0' } })
    b = await readyBase(t, FILES)
  })
  afterAll(() => t.close())

  test('answers 503 serving_unavailable with Retry-After instead of queueing without bound', async () => {
    const held = await t.request(`/v1/corpora/${b.corpusId}/chat/stream`, {
      method: 'POST',
      headers: bearer(b.keys.query),
      json: { question: 'Where does the Rhine begin?' },
    })
    expect(held.status).toBe(200)
    // The open stream holds the only slot.
    const refused = await t.request(`/v1/corpora/${b.corpusId}/chat`, {
      method: 'POST',
      headers: bearer(b.keys.query),
      json: { question: 'When did the oil crisis begin?' },
    })
    expect(refused.status).toBe(503)
    expect(refused.headers.get('retry-after')).toBe('1')
    expect((await refused.json()).error).toMatchObject({
      code: 'serving_unavailable',
      details: { retry_after_seconds: 1 },
    })
    const frozen = await t.request(`/corpora/${b.corpusId}/chat`, {
      method: 'POST',
      headers: bearer(b.keys.query),
      json: { question: 'When did the oil crisis begin?' },
    })
    expect(frozen.status).toBe(503)
    expect((await frozen.json()).detail).toBe('The answer engine is saturated.')
    await held.text()
    const ok = await t.request(`/v1/corpora/${b.corpusId}/chat`, {
      method: 'POST',
      headers: bearer(b.keys.query),
      json: { question: 'When did the oil crisis begin?' },
    })
    expect(ok.status).toBe(200)
  })
})

describe('with a model server', () => {
  const standin = startLlmStandin((messages) => {
    const user = messages.at(-1)?.content ?? ''
    return user.includes('Graubünden') ? 'The Rhine begins in Graubünden [1].' : 'I could not find it.'
  })
  let t: TestApp
  let b: ReadyBase
  beforeAll(async () => {
    t = authApp({
      env: { ENGRAM_LLM_URL: standin.url, ENGRAM_LLM_MODEL: 'tiny', ENGRAM_LLM_TIMEOUT_MS: '300' },
    })
    b = await readyBase(t, FILES)
  })
  afterAll(async () => {
    t.close()
    await standin.stop()
  })
  const ask = (path: 'chat' | 'chat/stream', prefix = '/v1') =>
    t.request(`${prefix}/corpora/${b.corpusId}/${path}`, {
      method: 'POST',
      headers: bearer(b.keys.query),
      json: { question: 'Where does the Rhine begin?', max_tokens: 50 },
    })

  test('the model writes the answer from the retrieved sources', async () => {
    standin.setMode('ok')
    const res = await ask('chat')
    const body = await res.json()
    expect(body.answer).toBe('The Rhine begins in Graubünden [1].')
    expect(body.metrics.generator).toBe('llm')
    expect(body.sources[0].filename).toBe('rhine.txt')
    const sent = standin.requests.at(-1)!
    expect(sent).toMatchObject({ model: 'tiny', max_tokens: 50 })
    expect(sent.messages.at(-1)!.content).toContain('[1] rhine.txt')
    expect(sent.messages.at(-1)!.content).toContain('Question: Where does the Rhine begin?')
  })

  test('the stream relays the model token by token between head and done', async () => {
    standin.setMode('ok')
    const events = parseSse(await (await ask('chat/stream')).text())
    expect(events[0]!.event).toBe('head')
    expect(events.at(-1)!.event).toBe('done')
    const deltas = events.filter((e) => e.event === 'delta').map((e) => (e.data as { delta: string }).delta)
    expect(deltas.length).toBeGreaterThan(2)
    expect(deltas.join('')).toBe('The Rhine begins in Graubünden [1].')
    expect((events.at(-1)!.data as { metrics: { generator: string } }).metrics.generator).toBe('llm')
  })

  for (const [mode, retry] of [
    ['error500', '5'],
    ['busy429', '7'],
    ['hang', '5'],
  ] as const) {
    test(`a model server that is ${mode} gives 503 with Retry-After ${retry}, on chat and before a stream starts`, async () => {
      standin.setMode(mode)
      const chat = await ask('chat')
      expect(chat.status).toBe(503)
      expect(chat.headers.get('retry-after')).toBe(retry)
      expect((await chat.json()).error.code).toBe('serving_unavailable')
      const stream = await ask('chat/stream', '')
      expect(stream.status).toBe(503)
      expect(stream.headers.get('retry-after')).toBe(retry)
      expect(Object.keys(await stream.json())).toEqual(['detail'])
    })
  }

  test('a model failure after the stream started ends it with exactly one error event', async () => {
    standin.setMode('break-mid-stream')
    const res = await ask('chat/stream')
    expect(res.status).toBe(200)
    const events = parseSse(await res.text())
    const names = events.map((e) => e.event)
    expect(names[0]).toBe('head')
    expect(names.at(-1)).toBe('error')
    expect(names.filter((n) => n === 'done' || n === 'error')).toEqual(['error'])
    expect((events.at(-1)!.data as { error: string }).error).toContain('engine crashed')
  })
})
