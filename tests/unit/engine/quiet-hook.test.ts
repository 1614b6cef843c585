import { describe, expect, test } from 'bun:test'
import { QuietHook } from '../../../src/features/engine/common/index'

// The hook the engine gives the executable's embedded pages back with, once the compile threads'
// work (a run's chunking, its deferred build) has gone quiet: once a burst, never while work is in
// flight, put off by work that starts again, not at all after a quiet time without work.

/** A hook over a hand-driven timer: `fire()` is the quiet time running out. */
function driven(quietMs = 100) {
  let pending: { fire: () => void; ms: number } | null = null
  let runs = 0
  const hook = new QuietHook({
    quietMs,
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
})
