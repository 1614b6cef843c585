import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { NO_ANSWER } from '../../src/features/engine/engine.service'
import { parseSse } from '../../src/platform/http/sse'
import type { TestApp } from '../helpers/app'
import { type ReadyBase, readyBase } from '../helpers/ready-base'
import { authApp, bearer } from './accounts.fixture'
import { THREE_TOPICS as FILES } from './texts.fixture'

let t: TestApp
let b: ReadyBase
beforeAll(async () => {
  t = authApp()
  b = await readyBase(t, FILES)
})
afterAll(() => t.close())

const ask = (json: Record<string, unknown>, path = 'chat') =>
  t.request(`/v1/corpora/${b.corpusId}/${path}`, { method: 'POST', headers: bearer(b.keys.query), json })

describe('short answers', () => {
  for (const strategy of ['cart', 'rag'] as const) {
    test(`${strategy}: a fact question gets the exact span, and the answer leads with it before the cited sentence`, async () => {
      const body = await (await ask({ question: 'When did the 1973 oil crisis begin?', strategy })).json()
      expect(body.short_answer).toBe('October 1973')
      expect(body.answer).toStartWith('October 1973 — ')
      expect(body.answer).toEndWith('[1]')
      expect(body.sources[0].snippet).toContain(body.answer.slice('October 1973 — '.length, -' [1]'.length))
    })

    test(`${strategy}: a how-many question gets the number`, async () => {
      const body = await (
        await ask({ question: 'How many people did the Black Death kill?', strategy })
      ).json()
      expect(body.short_answer).toBe('75 to 200 million')
      expect(body.answer).toStartWith('75 to 200 million — ')
    })
  }

  test('a question the base does not answer gets no short answer', async () => {
    const body = await (await ask({ question: 'What is the capital of Mongolia?' })).json()
    expect(body).toMatchObject({ answered: false, answer: NO_ANSWER, short_answer: null })
  })

  test('a question that asks for no fact gets no short answer, but its answer', async () => {
    const body = await (await ask({ question: 'Why did the 1973 oil crisis begin?' })).json()
    expect(body.short_answer).toBeNull()
    expect(body.answered).toBe(true)
    expect(body.answer).toContain('[1]')
  })

  test('the stream’s head carries the short answer the streamed text leads with', async () => {
    const res = await ask({ question: 'When did the 1973 oil crisis begin?' }, 'chat/stream')
    const events = parseSse(await res.text())
    const head = events.find((e) => e.event === 'head')!.data as { short_answer: string | null }
    const text = events
      .filter((e) => e.event === 'delta')
      .map((e) => (e.data as { delta: string }).delta)
      .join('')
    expect(head.short_answer).toBe('October 1973')
    expect(text).toStartWith('October 1973 — ')
  })

  test('the OpenAPI document publishes short_answer on the chat response', async () => {
    const doc = await (await t.request('/openapi.json')).json()
    const resp = doc.components.schemas.ChatResp
    expect(resp.properties.short_answer.description).toContain('exact span')
    expect(resp.required).toContain('short_answer')
  })
})
