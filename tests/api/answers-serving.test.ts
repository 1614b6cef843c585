import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { parseSse } from '../../src/platform/http/sse'
import type { TestApp } from '../helpers/app'
import { startLlmStandin } from '../helpers/llm-standin'
import { type ReadyBase, readyBase } from '../helpers/ready-base'
import { authApp, bearer } from './accounts.fixture'
import { call, mcpClient } from './mcp.fixture'
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
    return user.includes('Graubünden')
      ? 'The Rhine begins in Graubünden [1]. It empties into the North Sea [1].'
      : 'I could not find it.'
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
  const ask = (path: 'chat' | 'chat/stream', prefix = '/v1', maxTokens = 50) =>
    t.request(`${prefix}/corpora/${b.corpusId}/${path}`, {
      method: 'POST',
      headers: bearer(b.keys.query),
      json: { question: 'Where does the Rhine begin?', max_tokens: maxTokens },
    })
  const streamed = async (res: Response) => {
    const events = parseSse(await res.text())
    const deltas = events.filter((e) => e.event === 'delta').map((e) => (e.data as { delta: string }).delta)
    return { events, deltas, text: deltas.join('') }
  }

  test('the model writes the answer from the retrieved sources', async () => {
    standin.setMode('ok')
    const res = await ask('chat')
    const body = await res.json()
    expect(body.answer).toBe('The Rhine begins in Graubünden [1]. It empties into the North Sea [1].')
    expect(body.answered).toBe(true)
    // The model's answer does not lead with the extractive short answer, so none is given.
    expect(body.short_answer).toBeNull()
    expect(body.fallback).toBeUndefined()
    expect(body.metrics.generator).toBe('llm')
    expect(body.sources[0].filename).toBe('rhine.txt')
    const sent = standin.requests.at(-1)!
    expect(sent).toMatchObject({ model: 'tiny', max_tokens: 50 })
    expect(sent.messages.at(-1)!.content).toContain('[1] rhine.txt')
    expect(sent.messages.at(-1)!.content).toContain('Question: Where does the Rhine begin?')
  })

  test('the stream relays the model a whole sentence at a time between head and done', async () => {
    standin.setMode('ok')
    const { events, deltas, text } = await streamed(await ask('chat/stream'))
    expect(events[0]!.event).toBe('head')
    expect(events[0]!.data).toMatchObject({ head: true, answered: true })
    expect(events.at(-1)!.event).toBe('done')
    expect(deltas).toEqual(['The Rhine begins in Graubünden [1].', ' It empties into the North Sea [1].'])
    expect(text).toBe('The Rhine begins in Graubünden [1]. It empties into the North Sea [1].')
    expect((events.at(-1)!.data as { metrics: { generator: string } }).metrics.generator).toBe('llm')
  })

  test('an answer cut by max_tokens is trimmed back to its last complete sentence, on chat and stream', async () => {
    standin.setMode('ok')
    // 9 pieces: the first sentence (6) and three words of the second.
    const chat = await (await ask('chat', '/v1', 9)).json()
    expect(chat.answer).toBe('The Rhine begins in Graubünden [1].')
    expect(chat.metrics.generator).toBe('llm')
    expect(chat.fallback).toBeUndefined()
    const { events, text } = await streamed(await ask('chat/stream', '/v1', 9))
    expect(text).toBe('The Rhine begins in Graubünden [1].')
    expect(events.at(-1)!.event).toBe('done')
  })

  test('an answer cut before its first sentence ended falls back to the extractive answer, marked', async () => {
    standin.setMode('ok')
    const chat = await (await ask('chat', '/v1', 3)).json()
    expect(chat.answer).toBe(
      'Swiss canton — The Rhine begins in the Swiss canton of Graubünden and empties into the North Sea. [1]',
    )
    expect(chat.metrics.generator).toBe('extractive')
    expect(chat.fallback).toBe('extractive')
    expect(chat.fallback_reason).toBe('The model ran out of tokens (max_tokens) before it ended a sentence.')
    const { events, text } = await streamed(await ask('chat/stream', '/v1', 3))
    expect(text).toBe(chat.answer)
    expect((events.at(-1)!.data as { metrics: Record<string, unknown> }).metrics).toMatchObject({
      generator: 'extractive',
      fallback: 'extractive',
    })
  })

  for (const [mode, reason] of [
    ['error500', 'The model server answered 500.'],
    ['busy429', 'The model server answered 429.'],
    ['hang', 'The model server gave no answer within 300 ms.'],
  ] as const) {
    test(`a model server that is ${mode} gives the extractive answer marked as a fallback, on chat and stream`, async () => {
      standin.setMode(mode)
      const before = t.log.lines.length
      const chat = await ask('chat')
      expect(chat.status).toBe(200)
      const body = await chat.json()
      expect(body.answer).toBe(
        'Swiss canton — The Rhine begins in the Swiss canton of Graubünden and empties into the North Sea. [1]',
      )
      expect(body).toMatchObject({
        answered: true,
        fallback: 'extractive',
        fallback_reason: `${reason} The answer is the extractive one.`,
      })
      expect(body.metrics.generator).toBe('extractive')
      const stream = await ask('chat/stream', '')
      expect(stream.status).toBe(200)
      const { events, text } = await streamed(stream)
      expect(events[0]!.data).toMatchObject({ head: true, answered: true, fallback: 'extractive' })
      expect((events[0]!.data as { fallback_reason: string }).fallback_reason).toContain(reason)
      expect(text).toBe(body.answer)
      expect(events.at(-1)!.event).toBe('done')
      // Reported to the operator, at most once a minute however many questions fail.
      const warned = t.log.lines.slice(before).filter((l) => String(l.msg).includes('model server failed'))
      expect(warned.length).toBeLessThanOrEqual(1)
      t.clock.advance(61_000)
    })
  }

  test('the MCP query tool says the answer is the extractive fallback', async () => {
    standin.setMode('error500')
    const client = await mcpClient('http://engram.test/mcp-http/', b.keys.query, (input, init) =>
      t.handle(new Request(input, init)),
    )
    const r = await call(client, 'query_base', {
      base_id: b.corpusId,
      question: 'Where does the Rhine begin?',
    })
    expect(r.result.isError).toBeUndefined()
    expect(r.data).toMatchObject({ answered: true, fallback: 'extractive' })
    expect(r.text).toContain('(The model server answered 500. The answer is the extractive one.)')
    await client.close()
  })

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

describe('with a model server in strict mode', () => {
  const standin = startLlmStandin(() => 'The Rhine begins in Graubünden [1].')
  let t: TestApp
  let b: ReadyBase
  beforeAll(async () => {
    t = authApp({
      env: {
        ENGRAM_LLM_URL: standin.url,
        ENGRAM_LLM_MODEL: 'tiny',
        ENGRAM_LLM_TIMEOUT_MS: '300',
        ENGRAM_LLM_STRICT: 'true',
      },
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
      json: { question: 'Where does the Rhine begin?' },
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
})

describe('with a model server that is not running', () => {
  let t: TestApp
  let b: ReadyBase
  beforeAll(async () => {
    // A port that was listening a moment ago and is closed now: connections are refused.
    const gone = startLlmStandin()
    await gone.stop()
    t = authApp({ env: { ENGRAM_LLM_URL: gone.url, ENGRAM_LLM_MODEL: 'tiny', ENGRAM_LLM_TIMEOUT_MS: '300' } })
    b = await readyBase(t, FILES)
  })
  afterAll(() => t.close())

  test('every question still gets the extractive answer, marked, and the operator is told once', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await t.request(`/v1/corpora/${b.corpusId}/chat`, {
        method: 'POST',
        headers: bearer(b.keys.query),
        json: { question: 'When did the oil crisis begin?' },
      })
      expect(res.status).toBe(200)
      expect(await res.json()).toMatchObject({
        answer:
          'October 1973 — The 1973 oil crisis began in October 1973 when OAPEC proclaimed an oil embargo. [1]',
        short_answer: 'October 1973',
        answered: true,
        fallback: 'extractive',
        fallback_reason: 'The model server is unreachable. The answer is the extractive one.',
      })
    }
    const warned = t.log.lines.filter((l) => String(l.msg).includes('the model server failed'))
    expect(warned).toHaveLength(1)
    expect(warned[0]).toMatchObject({ level: 'warn', error: 'The model server is unreachable.' })
  })
})
