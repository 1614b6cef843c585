import { describe, expect, test } from 'bun:test'
import { ApiError } from '../../src/platform/errors/errors'
import { readBody } from '../../src/platform/http/body'

// A request body is read under a hard cap: whole at once when its length is declared (over a
// socket the server frames it by that length), through its stream otherwise; never past the cap.

const post = (body: BodyInit, headers: Record<string, string> = {}) =>
  new Request('http://engram.test/x', { method: 'POST', body, headers })

/** The error code readBody refuses with, or null when it reads the body. */
async function refusal(request: Request, limit: number): Promise<string | null> {
  try {
    await readBody(request, limit)
    return null
  } catch (e) {
    return e instanceof ApiError ? e.code : String(e)
  }
}

describe('readBody', () => {
  test('a body of declared length within the cap is read whole', async () => {
    const text = JSON.stringify({ question: 'When did the oil embargo begin?' })
    const bytes = await readBody(post(text, { 'content-length': String(Buffer.byteLength(text)) }), 1000)
    expect(new TextDecoder().decode(bytes)).toBe(text)
  })

  test('a declared length over the cap is refused before the body is read', async () => {
    const request = post('x'.repeat(10), { 'content-length': '5000' })
    expect(await refusal(request, 1000)).toBe('payload_too_large')
    expect(request.bodyUsed).toBe(false)
  })

  test('a body larger than its declared length is refused when it passes the cap all the same', async () => {
    expect(await refusal(post('x'.repeat(2000), { 'content-length': '10' }), 1000)).toBe('payload_too_large')
  })

  test('a body without a declared length is read through its stream, and refused past the cap', async () => {
    const stream = (n: number) =>
      new ReadableStream({
        start(c) {
          for (let i = 0; i < n; i++) c.enqueue(new Uint8Array(100).fill(120))
          c.close()
        },
      })
    expect((await readBody(post(stream(5)), 1000)).byteLength).toBe(500)
    expect(await refusal(post(stream(11)), 1000)).toBe('payload_too_large')
  })

  test('no body is an empty one', async () => {
    expect((await readBody(new Request('http://engram.test/x'), 1000)).byteLength).toBe(0)
    expect((await readBody(post('', { 'content-length': '0' }), 1000)).byteLength).toBe(0)
  })
})
