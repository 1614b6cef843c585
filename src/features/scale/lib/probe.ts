import type { Probe } from './runner'

/** Event lines of the chat stream, as they start a line (JSON data lines never hold a raw newline). */
const DELTA = '\nevent: delta\n'
const DONE = '\nevent: done\n'
const ERROR = '\nevent: error\n'
/** Text kept from the previous chunk, so a marker split across two chunks is still seen. */
const TAIL = DELTA.length

/**
 * Sends one streamed question and measures it the way a client does: time to the first `delta` and
 * to the terminal event; `ok` only when the stream ended with `done`. It only looks for event lines
 * and parses no JSON: the load generator runs on the server's own thread, so it must cost little
 * beside the work it measures. Aborting stops reading, which cancels the stream and frees its slot.
 */
export async function streamProbe(
  open: () => Promise<Response>,
  now: () => number,
  signal: AbortSignal,
): Promise<Probe> {
  const t0 = now()
  const res = await open()
  let ttft: number | null = null
  let ok = false
  if (res.body) {
    const reader = res.body.getReader()
    const decoder = new TextDecoder()
    let tail = '\n'
    try {
      for (;;) {
        const { done, value } = await reader.read()
        if (done || signal.aborted) break
        const text = tail + decoder.decode(value, { stream: true })
        if (ttft === null && text.includes(DELTA)) ttft = now() - t0
        if (text.includes(DONE)) {
          ok = true
          break
        }
        if (text.includes(ERROR)) break
        tail = text.slice(-TAIL)
      }
    } finally {
      await reader.cancel().catch(() => {})
    }
  }
  const latency = now() - t0
  return { ok: ok && res.status === 200, ttftMs: ttft ?? latency, latencyMs: latency }
}

/**
 * Sends one question in process and measures it from the answer's events: time to the first
 * `delta` and to `done`; `ok` only when the answer ended with `done` (a stream that fails after it
 * started is a failed query). Aborting stops reading, which ends the stream and frees its slot.
 */
export async function eventProbe(
  open: () => Promise<AsyncIterable<{ type: string }>>,
  now: () => number,
  signal: AbortSignal,
): Promise<Probe> {
  const t0 = now()
  const events = await open()
  let ttft: number | null = null
  let ok = false
  try {
    for await (const e of events) {
      if (signal.aborted) break
      if (ttft === null && e.type === 'delta') ttft = now() - t0
      if (e.type === 'done') {
        ok = true
        break
      }
    }
  } catch {
    ok = false
  }
  const latency = now() - t0
  return { ok, ttftMs: ttft ?? latency, latencyMs: latency }
}
