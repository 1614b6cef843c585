import { describe, expect, test } from 'bun:test'
import { streamProbe } from '../../src/features/scale/lib/probe'
import type { LevelStats } from '../../src/features/scale/lib/runner'
import {
  abortOnReturn,
  levelRamp,
  type Probe,
  percentile,
  runScaleTest,
  type ScalePlan,
  type Strategy,
  type Timer,
} from '../../src/features/scale/lib/runner'
import { type LoadWorker, runInWorker, type WorkerStart } from '../../src/features/scale/lib/worker-run'
import type { SseEvent } from '../../src/platform/http/sse'

/** A level record as the runner yields it. */
type LevelRecord = { level: number; cart: LevelStats; rag: LevelStats; partial?: boolean }

/** The record of the `i`-th event. */
const rec = (events: SseEvent[], i: number) => events[i]!.data as LevelRecord

/**
 * A fake timeline: time moves only when every piece of work is waiting on a timer, and then jumps
 * to the earliest one. Runs of the scale test are exact and take no real time.
 */
class Timeline implements Timer {
  t = 0
  private timers: { at: number; fire: () => void }[] = []

  now(): number {
    return this.t
  }

  after(ms: number) {
    const entry = { at: this.t + Math.max(0, ms), fire: () => {} }
    const done = new Promise<void>((resolve) => {
      entry.fire = resolve
    })
    this.timers.push(entry)
    return { done, cancel: () => this.drop(entry) }
  }

  sleep(ms: number): Promise<void> {
    return this.after(ms).done
  }

  private drop(entry: { at: number }) {
    this.timers = this.timers.filter((e) => e !== entry)
  }

  /** Drives the timeline until `p` settles. */
  async run<T>(p: Promise<T>): Promise<T> {
    let settled = false
    p.then(
      () => {
        settled = true
      },
      () => {
        settled = true
      },
    )
    for (;;) {
      await new Promise((r) => setImmediate(r))
      if (settled) return p
      const next = [...this.timers].sort((a, b) => a.at - b.at)[0]
      if (!next) throw new Error('nothing left to wait for')
      this.drop(next)
      this.t = next.at
      next.fire()
    }
  }
}

async function collect(gen: AsyncGenerator<SseEvent>): Promise<SseEvent[]> {
  const out: SseEvent[] = []
  for await (const e of gen) out.push(e)
  return out
}

function plan(over: Partial<ScalePlan> = {}): ScalePlan {
  return {
    queries: ['q1', 'q2', 'q3'],
    levels: [4, 2, 1],
    strategies: ['cart', 'rag'],
    maxSeconds: 60,
    maxRequestsPerLevel: 8,
    ...over,
  }
}

/** A sender whose queries take `ms` of fake time and which records what ran at once. */
function sender(tl: Timeline, ms: number, result: (n: number) => Probe | 'throw' = () => probe(ms)) {
  const state = {
    calls: 0,
    inFlight: { cart: 0, rag: 0 },
    maxInFlight: 0,
    overlapped: false,
    sent: [] as string[],
  }
  const send = async (strategy: Strategy, query: string) => {
    const n = state.calls++
    state.sent.push(`${strategy}:${query}`)
    state.inFlight[strategy]++
    state.maxInFlight = Math.max(state.maxInFlight, state.inFlight[strategy])
    if (state.inFlight.cart > 0 && state.inFlight.rag > 0) state.overlapped = true
    await tl.sleep(ms)
    state.inFlight[strategy]--
    const r = result(n)
    if (r === 'throw') throw new Error('503')
    return r
  }
  return { state, send }
}

function probe(ms: number): Probe {
  return { ok: true, ttftMs: ms / 5, latencyMs: ms }
}

describe('concurrency levels', () => {
  test('halve from the maximum down to 1', () => {
    expect(levelRamp(24)).toEqual([24, 12, 6, 3, 1])
    expect(levelRamp(64)).toEqual([64, 32, 16, 8, 4, 2, 1])
    expect(levelRamp(5)).toEqual([5, 2, 1])
    expect(levelRamp(1)).toEqual([1])
  })

  test('percentiles follow the nearest-rank rule', () => {
    const xs = Array.from({ length: 20 }, (_, i) => i + 1)
    expect(percentile(xs, 0.5)).toBe(10)
    expect(percentile(xs, 0.95)).toBe(19)
    expect(percentile([7], 0.95)).toBe(7)
    expect(percentile([], 0.5)).toBeNull()
  })
})

describe('scale test run', () => {
  test('streams start, one record per level in ramp order, then done; strategies never share the machine', async () => {
    const tl = new Timeline()
    const { state, send } = sender(tl, 10)
    const events = await tl.run(
      collect(runScaleTest(plan(), { send, timer: tl }, new AbortController().signal)),
    )
    expect(events.map((e) => e.event)).toEqual(['start', 'level', 'level', 'level', 'done'])
    expect(events[0]!.data).toEqual({
      start: true,
      queries: ['q1', 'q2', 'q3'],
      levels: [4, 2, 1],
      strategies: ['cart', 'rag'],
    })
    const records = [1, 2, 3].map((i) => rec(events, i))
    expect(records.map((r) => r.level)).toEqual([4, 2, 1])
    // 8 queries of 10 ms: 2 waves at level 4 (20 ms), 4 at level 2 (40 ms), 8 at level 1 (80 ms).
    expect(records.map((r) => r.cart.qps)).toEqual([400, 200, 100])
    expect(records.map((r) => r.rag.qps)).toEqual([400, 200, 100])
    expect(records[0]!.cart).toEqual({
      qps: 400,
      ok: 8,
      reqs: 8,
      ttft: 2,
      ttft_p95: 2,
      lat: 10,
      lat_p95: 10,
      cpu_ms: null,
    })
    expect(state.maxInFlight).toBe(4)
    expect(state.overlapped).toBe(false)
    expect(state.sent.slice(0, 4)).toEqual(['cart:q1', 'cart:q2', 'cart:q3', 'cart:q1'])
    expect(events[4]!.data).toEqual({ done: true, stopped: 'complete', levels_run: 3, elapsed_ms: 280 })
  })

  test('a level sends at most the configured number of queries to each strategy', async () => {
    const tl = new Timeline()
    const { state, send } = sender(tl, 10)
    const events = await tl.run(
      collect(
        runScaleTest(
          plan({ maxRequestsPerLevel: 3, levels: [4] }),
          { send, timer: tl },
          new AbortController().signal,
        ),
      ),
    )
    expect(rec(events, 1).cart.reqs).toBe(3)
    expect(rec(events, 1).rag.reqs).toBe(3)
    expect(state.calls).toBe(6)
  })

  test('failed and refused queries count as requests but not as answered ones', async () => {
    const tl = new Timeline()
    const { send } = sender(tl, 10, (n) =>
      n % 4 === 0 ? 'throw' : n % 4 === 1 ? { ok: false, ttftMs: 1, latencyMs: 1 } : probe(10),
    )
    const events = await tl.run(
      collect(
        runScaleTest(
          plan({ levels: [1], maxRequestsPerLevel: 8 }),
          { send, timer: tl },
          new AbortController().signal,
        ),
      ),
    )
    const cart = rec(events, 1).cart
    expect(cart).toMatchObject({ ok: 4, reqs: 8, lat: 10, lat_p95: 10 })
    // 4 answered in 80 ms.
    expect(cart.qps).toBe(50)
  })

  test('a test cannot run longer than its time cap: it stops at the cap and says so', async () => {
    const tl = new Timeline()
    const { send } = sender(tl, 300)
    const events = await tl.run(
      collect(
        runScaleTest(
          plan({ maxSeconds: 1, maxRequestsPerLevel: 1000 }),
          { send, timer: tl },
          new AbortController().signal,
        ),
      ),
    )
    expect(events.map((e) => e.event)).toEqual(['start', 'level', 'level', 'done'])
    const [l4, l2] = [rec(events, 1), rec(events, 2)]
    expect(l4.level).toBe(4)
    expect(l4.partial).toBeUndefined()
    expect(l4.cart.ok).toBe(4)
    // Level 2: cart finished at 900 ms; rag's queries were still running at 1000 ms and were abandoned.
    expect(l2).toMatchObject({ level: 2, partial: true, cart: { ok: 2 }, rag: { ok: 0, reqs: 0 } })
    expect(events[3]!.data).toEqual({ done: true, stopped: 'time_limit', levels_run: 2, elapsed_ms: 1000 })
    expect(tl.t).toBe(1000)
  })

  test('queries that never answer cannot hold the test past its cap', async () => {
    const tl = new Timeline()
    const send = () => new Promise<Probe>(() => {})
    const events = await tl.run(
      collect(runScaleTest(plan({ maxSeconds: 2 }), { send, timer: tl }, new AbortController().signal)),
    )
    expect(events.map((e) => e.event)).toEqual(['start', 'level', 'done'])
    expect(events[1]!.data).toMatchObject({
      level: 4,
      partial: true,
      cart: { ok: 0, reqs: 0, qps: 0, lat: null },
    })
    expect(events[2]!.data).toMatchObject({ stopped: 'time_limit', elapsed_ms: 2000 })
  })

  test('a client that goes away stops the test at once: no more queries are sent, and it ends once those in flight have', async () => {
    const tl = new Timeline()
    const signals: AbortSignal[] = []
    let calls = 0
    let settled = 0
    const send = async (_s: Strategy, _q: string, signal: AbortSignal) => {
      calls++
      signals.push(signal)
      await tl.sleep(10)
      settled++
      return probe(10)
    }
    const controller = new AbortController()
    let stopped = 0
    const gen = abortOnReturn(
      runScaleTest(plan({ maxRequestsPerLevel: 1000 }), { send, timer: tl }, controller.signal),
      controller,
      () => stopped++,
    )
    expect((await gen.next()).value!.event).toBe('start')
    const pending = gen.next()
    await new Promise((r) => setImmediate(r))
    expect(calls).toBe(4)
    const closing = gen.return(undefined)
    expect(controller.signal.aborted).toBe(true)
    // The test holds its slot until the queries in flight have settled (what they write is written).
    expect(stopped).toBe(0)
    const last = await tl.run(pending)
    expect(last.value).toMatchObject({ event: 'done', data: { stopped: 'aborted', levels_run: 0 } })
    expect(settled).toBe(4)
    expect((await tl.run(closing)).done).toBe(true)
    expect(stopped).toBe(1)
    expect(calls).toBe(4)
    expect(signals.every((s) => s.aborted)).toBe(true)
  })
})

describe('one streamed query', () => {
  /** A response whose chunks arrive 5 ms apart on a fake clock; records whether it was cancelled. */
  function chunked(chunks: string[]) {
    const clock = { t: 0 }
    const state = { cancelled: false }
    let i = 0
    const body = new ReadableStream<Uint8Array>(
      {
        pull(c) {
          clock.t += 5
          if (i < chunks.length) c.enqueue(new TextEncoder().encode(chunks[i++]))
          else c.close()
        },
        cancel() {
          state.cancelled = true
        },
        // Nothing is read ahead: a chunk "arrives" when the probe asks for it.
      },
      { highWaterMark: 0 },
    )
    return { res: new Response(body, { status: 200 }), now: () => clock.t, state }
  }

  test('times the first delta and the end, even when event lines are split across chunks', async () => {
    const { res, now, state } = chunked([
      'event: he',
      'ad\ndata: {}\n\nevent: del',
      'ta\ndata: {"delta":"It"}\n\n',
      'event: delta\ndata: {"delta":" began"}\n\nevent: do',
      'ne\ndata: {"done":true}\n\n',
    ])
    const p = await streamProbe(async () => res, now, new AbortController().signal)
    expect(p).toEqual({ ok: true, ttftMs: 15, latencyMs: 25 })
    expect(state.cancelled).toBe(true)
  })

  test('event names inside the answer text are not taken for events; an error event is a failure', async () => {
    const { res, now } = chunked([
      'event: head\ndata: {}\n\n',
      'event: delta\ndata: {"delta":"\\nevent: done\\n"}\n\n',
      'event: error\ndata: {"error":"boom"}\n\n',
    ])
    const p = await streamProbe(async () => res, now, new AbortController().signal)
    expect(p).toEqual({ ok: false, ttftMs: 10, latencyMs: 15 })
  })

  test('an aborted query stops reading and cancels its stream', async () => {
    const { res, now, state } = chunked(['event: head\ndata: {}\n\n', 'event: delta\ndata: {}\n\n'])
    const controller = new AbortController()
    controller.abort()
    const p = await streamProbe(async () => res, now, controller.signal)
    expect(p.ok).toBe(false)
    expect(state.cancelled).toBe(true)
  })
})

describe('load worker', () => {
  /** A stand-in worker: records what it is sent and lets the test post its messages. */
  class FakeWorker implements LoadWorker {
    sent: unknown[] = []
    terminated = false
    onmessage: ((e: MessageEvent) => void) | null = null
    onerror: ((e: ErrorEvent) => void) | null = null
    postMessage(msg: unknown) {
      this.sent.push(msg)
    }
    terminate() {
      this.terminated = true
    }
    emit(data: unknown) {
      this.onmessage?.({ data } as MessageEvent)
    }
  }

  const start: WorkerStart = {
    type: 'start',
    plan: plan({ levels: [1] }),
    url: 'http://127.0.0.1:1/v1/corpora/cor_1/chat/stream',
    authorization: 'Bearer ek_x',
  }

  /** A timer whose `after` resolves only when the test says so. */
  function manualTimer() {
    let fire = () => {}
    const timer: Timer = {
      now: () => 0,
      after: () => ({ done: new Promise<void>((r) => (fire = r)), cancel: () => {} }),
    }
    return { timer, fire: () => fire() }
  }

  async function* fallback(): AsyncGenerator<SseEvent> {
    yield { event: 'start', data: { transport: 'in_process' } }
  }

  const tick = () => new Promise((r) => setImmediate(r))

  test('relays the worker’s events in order, then terminates it', async () => {
    const w = new FakeWorker()
    const { timer } = manualTimer()
    const gen = runInWorker(() => w, start, {
      signal: new AbortController().signal,
      timer,
      watchdogMs: 1000,
      fallback,
    })
    const got = (async () => {
      const out: SseEvent[] = []
      for await (const e of gen) out.push(e)
      return out
    })()
    await tick()
    expect(w.sent[0]).toEqual(start)
    w.emit({ type: 'ready' })
    w.emit({ type: 'event', event: { event: 'start', data: { start: true } } })
    w.emit({ type: 'event', event: { event: 'level', data: { level: 1 } } })
    w.emit({ type: 'event', event: { event: 'done', data: { done: true } } })
    w.emit({ type: 'end' })
    expect((await got).map((e) => e.event)).toEqual(['start', 'level', 'done'])
    expect(w.terminated).toBe(true)
  })

  test('a worker that cannot start hands over to the in-process run', async () => {
    const w = new FakeWorker()
    const { timer } = manualTimer()
    const gen = runInWorker(() => w, start, {
      signal: new AbortController().signal,
      timer,
      watchdogMs: 1,
      fallback,
    })
    const first = gen.next()
    await tick()
    w.onerror?.({ message: 'Module not found' } as ErrorEvent)
    expect((await first).value).toEqual({ event: 'start', data: { transport: 'in_process' } })
    expect(w.terminated).toBe(true)
    const thrower = runInWorker(
      () => {
        throw new Error('no workers here')
      },
      start,
      { signal: new AbortController().signal, timer, watchdogMs: 1, fallback },
    )
    expect((await thrower.next()).value).toEqual({ event: 'start', data: { transport: 'in_process' } })
  })

  test('a failure after the worker started ends the stream with that error', async () => {
    const w = new FakeWorker()
    const { timer } = manualTimer()
    const gen = runInWorker(() => w, start, {
      signal: new AbortController().signal,
      timer,
      watchdogMs: 1,
      fallback,
    })
    const next = gen.next()
    await tick()
    w.emit({ type: 'ready' })
    w.emit({ type: 'error', message: 'fetch failed' })
    await expect(next).rejects.toThrow('fetch failed')
    expect(w.terminated).toBe(true)
  })

  test('the client going away stops and terminates the worker at once', async () => {
    const w = new FakeWorker()
    const { timer } = manualTimer()
    const controller = new AbortController()
    const gen = runInWorker(() => w, start, { signal: controller.signal, timer, watchdogMs: 1000, fallback })
    const next = gen.next()
    await tick()
    w.emit({ type: 'ready' })
    controller.abort()
    expect((await next).done).toBe(true)
    expect(w.terminated).toBe(true)
    expect(w.sent).toContainEqual({ type: 'abort' })
  })

  test('a worker gone silent past the watchdog is terminated and the test ends at its time limit', async () => {
    const w = new FakeWorker()
    const { timer, fire } = manualTimer()
    const got = (async () => {
      const out: SseEvent[] = []
      for await (const e of runInWorker(() => w, start, {
        signal: new AbortController().signal,
        timer,
        watchdogMs: 70_000,
        fallback,
      }))
        out.push(e)
      return out
    })()
    await tick()
    w.emit({ type: 'ready' })
    w.emit({ type: 'event', event: { event: 'start', data: { start: true } } })
    await tick()
    fire()
    const events = await got
    expect(events.map((e) => e.event)).toEqual(['start', 'done'])
    expect(events[1]!.data).toMatchObject({ done: true, stopped: 'time_limit' })
    expect(w.terminated).toBe(true)
  })
})
