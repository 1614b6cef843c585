import { parseSse, type SseEvent } from '../../src/platform/http/sse'

/**
 * Reads a `text/event-stream` body event by event as it arrives. Leaving the loop early (or an
 * error) cancels the body, which stops the producer on the other end (its `return()` runs).
 */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      buffer += decoder.decode(value, { stream: true })
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, end + 2)
        buffer = buffer.slice(end + 2)
        // Keep-alive comments parse to nothing and are skipped.
        for (const event of parseSse(block)) yield event
      }
    }
    for (const event of parseSse(buffer)) yield event
  } finally {
    await reader.cancel().catch(() => {})
  }
}
