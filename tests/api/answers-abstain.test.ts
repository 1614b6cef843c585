import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { NO_ANSWER } from '../../src/features/engine/engine.service'
import { SUPPORT_THRESHOLD } from '../../src/features/engine/support/index'
import { parseSse } from '../../src/platform/http/sse'
import type { TestApp } from '../helpers/app'
import { startLlmStandin } from '../helpers/llm-standin'
import { type ReadyBase, readyBase } from '../helpers/ready-base'
import { authApp, bearer } from './accounts.fixture'
import { call, mcpClient } from './mcp.fixture'

/** A small base of company documents: none of them says anything about Mongolia. */
const COMPANY = [
  {
    path: 'travel-policy.md',
    text:
      '# Travel policy\n\nEmployees book flights through the travel desk at least 14 days before departure. ' +
      'Economy class is used for flights shorter than six hours. Hotel costs are reimbursed up to 180 euros a night ' +
      'when the receipt is filed in the expense tool within 30 days. Trips to the capital of a country need the approval ' +
      'of a director.',
  },
  {
    path: 'onboarding.md',
    text:
      '# Onboarding\n\nA new employee receives a laptop and a badge on the first day. ' +
      'The security training must be completed in the first week. Each newcomer is assigned a buddy from the same team.',
  },
  {
    path: 'holidays.md',
    text:
      '# Holidays\n\nFull-time staff have 27 days of paid leave a year. Leave requests are approved by the team lead ' +
      'in the HR portal. Unused days can be carried over until the end of March of the next year.',
  },
]

const FOREIGN = 'What is the capital of Mongolia?'
const OWN = 'How many days of paid leave do full-time staff have?'
// A question the check lets through (the holiday policy shares its words) that the model finds no answer to.
const MODEL_FINDS_NONE = 'Who approves the leave requests of contractors?'

describe('a base that does not hold the answer', () => {
  const standin = startLlmStandin((messages) =>
    messages.at(-1)!.content.endsWith(MODEL_FINDS_NONE) ? 'NO_ANSWER' : 'Ulaanbaatar is the capital [1].',
  )
  let plain: TestApp
  let withModel: TestApp
  let b: ReadyBase
  let m: ReadyBase
  beforeAll(async () => {
    plain = authApp()
    b = await readyBase(plain, COMPANY)
    withModel = authApp({ env: { ENGRAM_LLM_URL: standin.url, ENGRAM_LLM_MODEL: 'tiny' } })
    m = await readyBase(withModel, COMPANY)
  })
  afterAll(async () => {
    plain.close()
    withModel.close()
    await standin.stop()
  })
  const ask = (t: TestApp, base: ReadyBase, question: string, strategy: 'cart' | 'rag', path = 'chat') =>
    t.request(`/v1/corpora/${base.corpusId}/${path}`, {
      method: 'POST',
      headers: bearer(base.keys.query),
      json: { question, strategy },
    })

  for (const strategy of ['cart', 'rag'] as const) {
    test(`${strategy}: says the documents do not answer, flags it, cites nothing and uses no document`, async () => {
      const body = await (await ask(plain, b, FOREIGN, strategy)).json()
      expect(body.answer).toBe(NO_ANSWER)
      expect(body.answer).toBe('The documents in this base do not answer this question.')
      expect(body.answered).toBe(false)
      expect(body.used_docs).toEqual([])
      expect(body.metrics.support).toBeLessThan(SUPPORT_THRESHOLD)
      // The closest passage is still listed, as the closest, not as a source of the answer.
      expect(body.sources[0].filename).toBe('travel-policy.md')
    })

    test(`${strategy}: a question the documents answer is still answered, with its citation`, async () => {
      const body = await (await ask(plain, b, OWN, strategy)).json()
      expect(body.answered).toBe(true)
      expect(body.answer).toContain('27 days of paid leave')
      expect(body.answer).toMatch(/\[1\]$/)
      expect(body.used_docs.length).toBeGreaterThan(0)
    })

    test(`${strategy}: the stream's head carries the flag and the deltas the same sentence`, async () => {
      const events = parseSse(await (await ask(plain, b, FOREIGN, strategy, 'chat/stream')).text())
      expect(events[0]!.data).toMatchObject({ head: true, answered: false, used_docs: [] })
      const text = events
        .filter((e) => e.event === 'delta')
        .map((e) => (e.data as { delta: string }).delta)
        .join('')
      expect(text).toBe(NO_ANSWER)
      expect(events.at(-1)!.event).toBe('done')
    })

    test(`${strategy}: with a model server, the model is not asked to answer from unrelated passages`, async () => {
      const before = standin.requests.length
      const body = await (await ask(withModel, m, FOREIGN, strategy)).json()
      expect(body).toMatchObject({ answer: NO_ANSWER, answered: false })
      const events = parseSse(await (await ask(withModel, m, FOREIGN, strategy, 'chat/stream')).text())
      expect(events[0]!.data).toMatchObject({ answered: false })
      expect(standin.requests.length).toBe(before)
      // An answerable question still goes to the model.
      const own = await (await ask(withModel, m, OWN, strategy)).json()
      expect(own).toMatchObject({ answered: true, answer: 'Ulaanbaatar is the capital [1].' })
      expect(standin.requests.length).toBe(before + 1)
    })

    test(`${strategy}: a model that finds no answer in the passages it is given declines as the engine does`, async () => {
      const before = standin.requests.length
      const body = await (await ask(withModel, m, MODEL_FINDS_NONE, strategy)).json()
      expect(body).toMatchObject({ answer: NO_ANSWER, answered: false, used_docs: [], short_answer: null })
      expect(body.metrics.generator).toBe('llm')
      // The check had let the passages through: the model was asked, and told how to decline.
      expect(body.metrics.support).toBeGreaterThanOrEqual(SUPPORT_THRESHOLD)
      expect(standin.requests.length).toBe(before + 1)
      expect(standin.requests.at(-1)!.messages[0]!.content).toContain('reply with exactly NO_ANSWER')
      const events = parseSse(
        await (await ask(withModel, m, MODEL_FINDS_NONE, strategy, 'chat/stream')).text(),
      )
      expect(events[0]!.data).toMatchObject({
        head: true,
        answered: false,
        used_docs: [],
        short_answer: null,
      })
      const text = events
        .filter((e) => e.event === 'delta')
        .map((e) => (e.data as { delta: string }).delta)
        .join('')
      expect(text).toBe(NO_ANSWER)
      expect(events.at(-1)).toMatchObject({ event: 'done', data: { metrics: { generator: 'llm' } } })
    })
  }

  test('the MCP query tool says so and lists the passages only as the closest ones', async () => {
    const client = await mcpClient('http://engram.test/mcp-http/', b.keys.query, (input, init) =>
      plain.handle(new Request(input, init)),
    )
    const r = await call(client, 'query_base', { base_id: b.corpusId, question: FOREIGN })
    expect(r.result.isError).toBeUndefined()
    expect(r.data).toMatchObject({ answer: NO_ANSWER, answered: false, used_docs: [] })
    expect(r.text.split('\n')[0]).toBe(NO_ANSWER)
    expect(r.text).toContain('Closest passages (they do not answer the question):')
    expect(r.text).not.toContain('Sources:')
    expect(r.text).not.toContain('Documents used')
    const own = await call(client, 'query_base', { base_id: b.corpusId, question: OWN })
    expect(own.data).toMatchObject({ answered: true })
    expect(own.text).toContain('Sources:')
    await client.close()
  })

  test('the OpenAPI document publishes the flags on ChatResp and the stream head', async () => {
    const doc = await (await plain.request('/openapi.json')).json()
    const text = JSON.stringify(doc)
    const chat =
      doc.paths['/v1/corpora/{corpus_id}/chat'].post.responses['200'].content['application/json'].schema
    const stream =
      doc.paths['/v1/corpora/{corpus_id}/chat/stream'].post.responses['200'].content['text/event-stream']
        .schema
    const resolve = (s: { $ref?: string }) =>
      s.$ref ? doc.components.schemas[s.$ref.split('/').at(-1)!] : (s as Record<string, unknown>)
    const props = (resolve(chat) as { properties: Record<string, unknown> }).properties
    expect(Object.keys(props)).toEqual(expect.arrayContaining(['answered', 'fallback', 'fallback_reason']))
    const head = (
      stream as { oneOf: { properties: { event: { const: string }; data: { $ref: string } } }[] }
    ).oneOf.find((e) => e.properties.event.const === 'head')!
    const headProps = (resolve(head.properties.data) as { properties: Record<string, unknown> }).properties
    expect(Object.keys(headProps)).toEqual(
      expect.arrayContaining(['answered', 'fallback', 'fallback_reason']),
    )
    expect(text).toContain('do not answer the question')
  })
})
