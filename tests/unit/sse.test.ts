import { describe, expect, test } from 'bun:test'
import { parseSse, type SseEvent, sseResponse } from '../../src/platform/http/sse'

const opts = {
  terminal: ['done', 'error'],
  onError: (e: unknown): SseEvent => ({ event: 'error', data: { error: (e as Error).message } }),
}

describe('server-sent events', () => {
  test('events arrive in order with their names and JSON data', async () => {
    async function* gen() {
      yield { event: 'head', data: { head: true } }
      yield { event: 'delta', data: { delta: 'Hel' } }
      yield { event: 'delta', data: { delta: 'lo' } }
      yield { event: 'done', data: { done: true } }
    }
    const res = sseResponse(gen(), opts)
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8')
    expect(parseSse(await res.text())).toEqual([
      { event: 'head', data: { head: true } },
      { event: 'delta', data: { delta: 'Hel' } },
      { event: 'delta', data: { delta: 'lo' } },
      { event: 'done', data: { done: true } },
    ])
  })

  test('a failure after the start becomes one terminal error event and nothing follows', async () => {
    async function* gen() {
      yield { event: 'head', data: {} }
      throw new Error('backend went away')
    }
    const events = parseSse(await sseResponse(gen(), opts).text())
    expect(events.map((e) => e.event)).toEqual(['head', 'error'])
    expect(events[1]!.data).toEqual({ error: 'backend went away' })
  })

  test('nothing is sent after a terminal event, and the producer is stopped', async () => {
    let finalized = false
    async function* gen() {
      try {
        yield { event: 'done', data: {} }
        yield { event: 'delta', data: { delta: 'late' } }
      } finally {
        finalized = true
      }
    }
    const events = parseSse(await sseResponse(gen(), opts).text())
    expect(events.map((e) => e.event)).toEqual(['done'])
    expect(finalized).toBe(true)
  })

  test('a client that disconnects stops the producer', async () => {
    let produced = 0
    let finalized = false
    async function* gen() {
      try {
        for (;;) {
          produced++
          yield { event: 'delta', data: { n: produced } }
        }
      } finally {
        finalized = true
      }
    }
    const res = sseResponse(gen(), opts)
    const reader = res.body!.getReader()
    await reader.read()
    await reader.cancel()
    expect(finalized).toBe(true)
    expect(produced).toBeLessThan(5)
  })
})
