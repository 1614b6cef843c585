/** The gate is full: callers answer 503 with Retry-After rather than queue without bound. */
export class SaturatedError extends Error {
  override name = 'SaturatedError'
}

/**
 * Admits at most `maxActive` tasks at once and lets at most `maxQueued` more wait; anything beyond
 * is refused at once. Bounded work in, bounded latency out.
 */
export class Gate {
  private active = 0
  private readonly waiting: (() => void)[] = []

  constructor(
    readonly maxActive: number,
    readonly maxQueued: number,
  ) {}

  /** Tasks running now. */
  get running(): number {
    return this.active
  }

  /** Tasks waiting for a slot. */
  get queued(): number {
    return this.waiting.length
  }

  /** Waits for a slot (or throws SaturatedError) and returns its release function. */
  async acquire(): Promise<() => void> {
    if (this.active >= this.maxActive) {
      if (this.waiting.length >= this.maxQueued) throw new SaturatedError('The engine is saturated.')
      await new Promise<void>((resolve) => this.waiting.push(resolve))
    } else {
      this.active++
    }
    let released = false
    return () => {
      if (released) return
      released = true
      const next = this.waiting.shift()
      // The slot passes straight to the next waiter, so `active` stays the same.
      if (next) next()
      else this.active--
    }
  }

  /** Runs `fn` in a slot. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    const release = await this.acquire()
    try {
      return await fn()
    } finally {
      release()
    }
  }
}
