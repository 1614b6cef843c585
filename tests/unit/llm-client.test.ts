import { afterAll, describe, expect, test } from 'bun:test'
import { createLlmClient } from '../../src/platform/llm/openai-client'
import { LlmUnavailableError } from '../../src/platform/llm/server-request'
import { startLlmStandin } from '../helpers/llm-standin'

const standin = startLlmStandin((messages) => `You asked: ${messages.at(-1)?.content}`)
afterAll(() => standin.stop())
// A timeout a loaded machine never reaches on a served request; the hang test has its own short one.
const client = createLlmClient({ url: standin.url, model: 'tiny', apiKey: 'sk-test', timeoutMs: 10_000 })
const ask = [{ role: 'user' as const, content: 'why?' }]

async function collect(gen: AsyncGenerator<string, unknown>) {
  const out: string[] = []
  for await (const p of gen) out.push(p)
  return out
}

describe('OpenAI-compatible client', () => {
  test('reports why the model stopped: "length" when max_tokens cut the answer, "stop" otherwise', async () => {
    standin.setMode('ok')
    expect(await client.completion({ messages: ask, maxTokens: 2 })).toEqual({
      text: 'You asked: ',
      finishReason: 'length',
    })
    expect(await client.completion({ messages: ask })).toEqual({
      text: 'You asked: why?',
      finishReason: 'stop',
    })
    const gen = client.stream({ messages: ask, maxTokens: 2 })
    let next = await gen.next()
    const pieces: string[] = []
    while (!next.done) {
      pieces.push(next.value)
      next = await gen.next()
    }
    expect(pieces.join('')).toBe('You asked: ')
    expect(next.value).toBe('length')
  })

  test('streams the answer piece by piece until [DONE], sending model, messages and max_tokens', async () => {
    standin.setMode('ok')
    const pieces = await collect(client.stream({ messages: ask, maxTokens: 64 }))
    expect(pieces.join('')).toBe('You asked: why?')
    expect(pieces.length).toBeGreaterThan(1)
    expect(standin.requests.at(-1)).toMatchObject({
      model: 'tiny',
      stream: true,
      max_tokens: 64,
      messages: ask,
    })
  })

  test('completes without streaming', async () => {
    standin.setMode('ok')
    expect(await client.complete({ messages: ask })).toBe('You asked: why?')
  })

  test('a server error or a busy server is "unavailable" with the server\'s retry delay', async () => {
    standin.setMode('busy429')
    const busy = await collect(client.stream({ messages: ask })).catch((e) => e)
    expect(busy).toBeInstanceOf(LlmUnavailableError)
    expect(busy.retryAfterSeconds).toBe(7)
    standin.setMode('error500')
    const down = await client.complete({ messages: ask }).catch((e) => e)
    expect(down).toBeInstanceOf(LlmUnavailableError)
    expect(down.retryAfterSeconds).toBe(5)
  })

  test('a server that does not answer in time is "unavailable" instead of a hang', async () => {
    standin.setMode('hang')
    const impatient = createLlmClient({ url: standin.url, model: 'tiny', apiKey: 'sk-test', timeoutMs: 300 })
    const err = await collect(impatient.stream({ messages: ask })).catch((e) => e)
    expect(err).toBeInstanceOf(LlmUnavailableError)
    expect(err.message).toContain('no answer within 300 ms')
  })

  test('an unreachable server is "unavailable"', async () => {
    const nowhere = createLlmClient({ url: 'http://127.0.0.1:9/v1', model: 'x', timeoutMs: 300 })
    expect(await nowhere.complete({ messages: ask }).catch((e) => e)).toBeInstanceOf(LlmUnavailableError)
  })

  test('an error chunk in the middle of the stream fails the stream after the pieces already sent', async () => {
    standin.setMode('break-mid-stream')
    const got: string[] = []
    const err = await (async () => {
      for await (const p of client.stream({ messages: ask })) got.push(p)
    })().catch((e) => e)
    expect(got).toEqual(['You '])
    expect((err as Error).message).toContain('engine crashed')
  })
})
