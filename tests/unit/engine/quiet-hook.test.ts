import { describe, expect, test } from 'bun:test'
import { QuietHook } from '../../../src/features/engine/common/index'

// The hook the engine gives the executable's embedded pages back with, once the compile threads'
// work (a run's chunking, its deferred build) has gone quiet: once a burst, never while work is in
// flight, put off by work that starts again, not at all after a quiet time without work.

/** A hook over a hand-driven timer: `fire()` is the quiet time running out. */
function driven(quietMs = 100, every?: { everyMs: number; now: () => number }) {
  let pending: { fire: () => void; ms: number } | null = null
  let runs = 0
  const hook = new QuietHook({
    quietMs,
    ...every,
    run: () => runs++,
    setTimer: (fire, ms) => {
      pending = { fire, ms }
      return pending
    },
    clearTimer: (t) => {
      if (pending === t) pending = null
    },
  })
  return {
    hook,
    runs: () => runs,
    waiting: () => pending,
    fire: () => {
      const p = pending
      pending = null
      p?.fire()
    },
  }
}

function deferred() {
  let resolve!: () => void
  let reject!: (e: Error) => void
  const promise = new Promise<void>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

const settle = () => new Promise((r) => setImmediate(r))

describe('QuietHook', () => {
  test('runs once after a burst of work has settled and stayed quiet', async () => {
    const d = driven(100)
    const a = deferred()
    const b = deferred()
    d.hook.track(a.promise)
    d.hook.track(b.promise)
    a.resolve()
    await settle()
    expect(d.waiting()).toBeNull()
    b.resolve()
    await settle()
    expect(d.waiting()?.ms).toBe(100)
    d.fire()
    expect(d.runs()).toBe(1)
    expect(d.hook.runs).toBe(1)
    // A quiet time with no work since runs nothing.
    d.fire()
    expect(d.runs()).toBe(1)
  })

  test('work that starts within the quiet time puts the run off until it settles', async () => {
    const d = driven()
    const a = deferred()
    d.hook.track(a.promise)
    a.resolve()
    await settle()
    expect(d.waiting()).not.toBeNull()
    const b = deferred()
    d.hook.track(b.promise)
    expect(d.waiting()).toBeNull()
    b.resolve()
    await settle()
    d.fire()
    expect(d.runs()).toBe(1)
  })

  test('failed work counts as settled; the tracked promise is handed back as it is', async () => {
    const d = driven()
    const a = deferred()
    const tracked = d.hook.track(a.promise)
    expect(tracked).toBe(a.promise)
    a.reject(new Error('the compile threads are closed'))
    await expect(tracked).rejects.toThrow('closed')
    await settle()
    d.fire()
    expect(d.runs()).toBe(1)
  })

  test('closing drops a waiting run', async () => {
    const d = driven()
    const a = deferred()
    d.hook.track(a.promise)
    a.resolve()
    await settle()
    d.hook.close()
    expect(d.waiting()).toBeNull()
    d.fire()
    expect(d.runs()).toBe(0)
  })

  // Issue 38, session 24: a run, its deferred build and forced runs back to back have no quiet time,
  // so the pages the compile thread read at its start were held through all of them.
  test('with everyMs, a burst without a quiet time runs as its pieces settle every so often', async () => {
    let now = 1000
    const d = driven(100, { everyMs: 500, now: () => now })
    // Pieces one after another, each tracked within the quiet time of the last.
    const piece = async (ms: number) => {
      const p = deferred()
      d.hook.track(p.promise)
      now += ms
      p.resolve()
      await settle()
    }
    await piece(200)
    await piece(200)
    expect(d.runs()).toBe(0)
    // 600 ms since the burst began: runs as this piece settles, before any quiet time.
    await piece(200)
    expect(d.runs()).toBe(1)
    // It just ran and nothing is in flight: no quiet run is due for it.
    expect(d.waiting()).toBeNull()
    await piece(200)
    expect(d.runs()).toBe(1)
    // A quiet run for the work since, once quiet.
    d.fire()
    expect(d.runs()).toBe(2)
    // Overlapping pieces: runs as one settles while another is in flight, then once quiet.
    const a = deferred()
    const b = deferred()
    d.hook.track(a.promise)
    d.hook.track(b.promise)
    now += 600
    a.resolve()
    await settle()
    expect(d.runs()).toBe(3)
    expect(d.waiting()).toBeNull()
    b.resolve()
    await settle()
    d.fire()
    expect(d.runs()).toBe(4)
    expect(d.hook.runs).toBe(4)
  })

  test('without everyMs, a burst without a quiet time does not run until quiet', async () => {
    let now = 0
    const d = driven(100)
    for (let i = 0; i < 5; i++) {
      const p = deferred()
      d.hook.track(p.promise)
      now += 1000
      p.resolve()
      await settle()
    }
    expect(now).toBe(5000)
    expect(d.runs()).toBe(0)
    d.fire()
    expect(d.runs()).toBe(1)
  })
})
