/**
 * Server-sent events over a POST. `EventSource` can only GET and cannot send the bearer token, so
 * the console reads the response body of an ordinary request (`parseAs: 'stream'`) and parses the
 * `text/event-stream` format itself, event by event as bytes arrive. Refusals before the stream
 * starts (a 503 with Retry-After, a 409, a 401) are `ApiError`s, as for every other call.
 */

/** One event of a stream: its name (`message` when unnamed) and its JSON payload. */
export interface StreamEvent<T = unknown> {
  event: string
  data: T
}

/** Splits a growing `text/event-stream` text into events; keeps what is not yet complete. */
export class SseParser {
  private buf = ''

  /** Adds a chunk of text; answers the events it completed. */
  push(chunk: string): StreamEvent[] {
    this.buf += chunk
    const out: StreamEvent[] = []
    // An event ends at a blank line; the format allows \n, \r\n and \r line ends.
    for (;;) {
      const m = /\r\n\r\n|\n\n|\r\r/.exec(this.buf)
      if (!m) break
      const block = this.buf.slice(0, m.index)
      this.buf = this.buf.slice(m.index + m[0].length)
      const e = parseBlock(block)
      if (e) out.push(e)
    }
    return out
  }
}

function parseBlock(block: string): StreamEvent | null {
  let event = 'message'
  const data: string[] = []
  for (const line of block.split(/\r\n|\n|\r/)) {
    if (line === '' || line.startsWith(':')) continue // comments are keep-alives
    const colon = line.indexOf(':')
    const field = colon < 0 ? line : line.slice(0, colon)
    let value = colon < 0 ? '' : line.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    if (field === 'event') event = value
    else if (field === 'data') data.push(value)
  }
  if (data.length === 0) return null
  const text = data.join('\n')
  try {
    return { event, data: JSON.parse(text) }
  } catch {
    return { event, data: text }
  }
}

/**
 * The events of a `text/event-stream` body as they arrive. Cancel by aborting the request that
 * gave the body (the reading stops; the server then stops its work) or by leaving the loop.
 */
export async function* readEvents(body: Response['body'] | undefined): AsyncGenerator<StreamEvent> {
  if (!body) return
  const reader = body.pipeThrough(new TextDecoderStream()).getReader()
  const parser = new SseParser()
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      for (const e of parser.push(value)) yield e
    }
  } finally {
    // Leaving early (a terminal event, an abort, a component gone) closes the connection.
    await reader.cancel().catch(() => {})
  }
}
