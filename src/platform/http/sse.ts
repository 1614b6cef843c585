/** One server-sent event: its name and a JSON payload. */
export interface SseEvent {
  event: string
  data: unknown
}

export interface SseOptions {
  /** Turns a failure after the 200 into the stream's single terminal event. */
  onError: (error: unknown) => SseEvent
  /** Names of events that end a stream; nothing is sent after one of them. */
  terminal: readonly string[]
  /** Comment line sent every `keepAliveMs` while the producer is quiet (proxies drop idle streams). */
  keepAliveMs?: number
}

const encoder = new TextEncoder()

/** Serialises one event in the `text/event-stream` format. */
export function formatSse(e: SseEvent): string {
  return `event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`
}

/**
 * Streams events from an async generator as `text/event-stream`. Guarantees exactly one terminal
 * event: if the producer throws, `onError` supplies it; if the producer ends without one, the
 * stream ends anyway. A client that disconnects stops the producer (its `return()` runs).
 */
export function sseResponse(source: AsyncGenerator<SseEvent>, opts: SseOptions): Response {
  let keepAlive: ReturnType<typeof setInterval> | null = null
  let closed = false
  const stop = () => {
    closed = true
    if (keepAlive) clearInterval(keepAlive)
  }
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      if (opts.keepAliveMs) {
        keepAlive = setInterval(() => {
          if (!closed) controller.enqueue(encoder.encode(': keep-alive\n\n'))
        }, opts.keepAliveMs)
      }
    },
    async pull(controller) {
      if (closed) return
      let next: SseEvent | null
      try {
        const r = await source.next()
        next = r.done ? null : r.value
      } catch (e) {
        next = opts.onError(e)
      }
      if (closed) return
      if (next === null) {
        stop()
        controller.close()
        return
      }
      controller.enqueue(encoder.encode(formatSse(next)))
      if (opts.terminal.includes(next.event)) {
        stop()
        controller.close()
        await source.return(undefined).catch(() => {})
      }
    },
    async cancel() {
      stop()
      await source.return(undefined).catch(() => {})
    },
  })
  return new Response(body, {
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
    },
  })
}

/** The `error` event a stream ends with when its producer fails: the failure's message, or `fallback`. */
export function errorEvent(fallback: string): (error: unknown) => SseEvent {
  return (e) => ({ event: 'error', data: { error: (e as Error).message || fallback } })
}

/**
 * Streams a service's domain events as `text/event-stream`, each turned into its wire event by
 * `toSse`; the guarantees are sseResponse's (one terminal event, a disconnect stops the source).
 */
export function sseFrom<T>(
  source: AsyncIterable<T>,
  toSse: (event: T) => SseEvent,
  opts: SseOptions,
): Response {
  async function* events(): AsyncGenerator<SseEvent> {
    for await (const e of source) yield toSse(e)
  }
  return sseResponse(events(), opts)
}

/** Parses a `text/event-stream` body into events (for tests and the CLI). */
export function parseSse(text: string): SseEvent[] {
  const out: SseEvent[] = []
  for (const block of text.split('\n\n')) {
    let event = 'message'
    const data: string[] = []
    for (const line of block.split('\n')) {
      if (line.startsWith('event:')) event = line.slice(6).trim()
      else if (line.startsWith('data:')) data.push(line.slice(5).trimStart())
    }
    if (data.length > 0) out.push({ event, data: JSON.parse(data.join('\n')) })
  }
  return out
}
