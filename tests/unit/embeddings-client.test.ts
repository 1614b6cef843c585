import { afterAll, describe, expect, test } from 'bun:test'
import { createEmbeddingsClient } from '../../src/platform/llm/embeddings-client'
import { LlmUnavailableError } from '../../src/platform/llm/server-request'
import { startEmbedStandin } from '../helpers/embed-standin'

// A text's vector: its length and its number of spaces (so different texts point different ways).
const standin = startEmbedStandin((t) => [t.length, t.split(' ').length - 1, 0])
afterAll(() => standin.stop())
const client = createEmbeddingsClient({
  url: standin.url,
  model: 'mini',
  apiKey: 'sk-embed',
  timeoutMs: 300,
  batch: 2,
})
const norm = (v: Float32Array) => Math.hypot(...v)

describe('OpenAI-compatible embeddings client', () => {
  test('one unit-length vector per text, in order, in batches, sending model, input and the key', async () => {
    standin.setMode('ok')
    const before = standin.requests.length
    const texts = ['a b', 'abcd', 'x y z', 'q']
    const vs = await client.embed(texts)
    expect(vs).toHaveLength(4)
    for (const v of vs) expect(norm(v)).toBeCloseTo(1, 5)
    // 'abcd': length 4, no spaces -> [1, 0, 0]
    expect([...vs[1]!]).toEqual([1, 0, 0])
    expect(vs[0]![1]! / vs[0]![0]!).toBeCloseTo(1 / 3, 5)
    const sent = standin.requests.slice(before)
    expect(sent.map((r) => r.input)).toEqual([
      ['a b', 'abcd'],
      ['x y z', 'q'],
    ])
    expect(sent[0]).toMatchObject({ model: 'mini', authorization: 'Bearer sk-embed' })
  })

  test('items sent out of order are placed by their index', async () => {
    standin.setMode('reversed')
    const vs = await client.embed(['abcd', 'a b'])
    expect([...vs[0]!]).toEqual([1, 0, 0])
    expect(vs[1]![1]).toBeGreaterThan(0)
  })

  test('a server error, a hang or no server is "unavailable"', async () => {
    standin.setMode('error500')
    expect(await client.embed(['a']).catch((e) => e)).toBeInstanceOf(LlmUnavailableError)
    standin.setMode('hang')
    const slow = await client.embed(['a']).catch((e) => e)
    expect(slow).toBeInstanceOf(LlmUnavailableError)
    expect(slow.message).toContain('no answer within 300 ms')
    const nowhere = createEmbeddingsClient({
      url: 'http://127.0.0.1:9/v1',
      model: 'x',
      timeoutMs: 300,
      batch: 8,
    })
    expect(await nowhere.embed(['a']).catch((e) => e)).toBeInstanceOf(LlmUnavailableError)
  })

  test('an answer missing a vector, or with vectors that are not numbers, is an error naming the input', async () => {
    for (const mode of ['short', 'not-numbers'] as const) {
      standin.setMode(mode)
      const err = await client.embed(['a', 'b c']).catch((e) => e)
      expect(err).toBeInstanceOf(Error)
      expect(err).not.toBeInstanceOf(LlmUnavailableError)
      expect(err.message).toContain('lacks a vector for input 0 of 2')
    }
  })
})
