/** How a QuietHook waits, and what it does once the work is quiet. */
export interface QuietOptions {
  /** How long the work must stay quiet (nothing in flight, nothing new) before `run`. */
  quietMs: number
  /** What is done once a burst of work has been quiet that long (cheap: it runs on the event loop). */
  run: () => void
  /**
   * When set, a burst that goes on without a quiet time runs `run` too, as a piece of its work
   * settles at least `everyMs` after the burst began or `run` last ran (it still runs once quiet).
   */
  everyMs?: number
  /** The clock `everyMs` is read on, in ms (performance.now unless given). */
  now?: () => number
  setTimer?: (fire: () => void, ms: number) => unknown
  clearTimer?: (timer: unknown) => void
}

/**
 * Runs `run` once a burst of tracked work (an onboarding run's chunking, then its deferred cartridge
 * build, on the compile threads) has been quiet for `quietMs`: once a burst, however many pieces it
 * had. Work that starts again before the quiet time is up puts it off; a quiet time after no work
 * does nothing; with `everyMs`, a burst without a quiet time runs it every so often too. The engine
 * gives back the executable's pages its tables were read from this way
 * (embedded-pages.ts), after the work that read them.
 */
export class QuietHook {
  private inFlight = 0
  /** Work was tracked since `run` last ran. */
  private dirty = false
  private timer: unknown = null
  /** When the burst began or `run` last ran in it (everyMs). */
  private since = 0
  /** How many times `run` ran. */
  runs = 0

  constructor(private readonly opts: QuietOptions) {}

  /** Follows one piece of work (settled either way): `run` waits until it and every other one has settled; answers it, the same object. */
  track<P extends Promise<unknown>>(work: P): P {
    this.inFlight++
    if (!this.dirty) this.since = this.now()
    this.dirty = true
    this.cancel()
    const settled = () => {
      const ran = this.during()
      if (--this.inFlight > 0) return
      // Nothing in flight and `run` just ran: nothing was read since, no quiet run is due.
      if (ran) this.dirty = false
      else this.schedule()
    }
    work.then(settled, settled)
    return work
  }

  /** Drops a waiting run (the process is stopping). */
  close(): void {
    this.cancel()
    this.dirty = false
  }

  private now(): number {
    return (this.opts.now ?? performance.now.bind(performance))()
  }

  /** A piece of the burst settled: `run` when everyMs has passed since it began or last ran; whether it ran. */
  private during(): boolean {
    const every = this.opts.everyMs
    if (every === undefined || !this.dirty) return false
    const now = this.now()
    if (now - this.since < every) return false
    this.since = now
    this.runs++
    this.opts.run()
    return true
  }

  private schedule(): void {
    const set = this.opts.setTimer ?? ((fire, ms) => setTimeout(fire, ms).unref())
    this.timer = set(() => this.fire(), this.opts.quietMs)
  }

  private cancel(): void {
    if (this.timer === null) return
    ;(this.opts.clearTimer ?? ((t) => clearTimeout(t as ReturnType<typeof setTimeout>)))(this.timer)
    this.timer = null
  }

  private fire(): void {
    this.timer = null
    if (this.inFlight > 0 || !this.dirty) return
    this.dirty = false
    this.runs++
    this.opts.run()
  }
}
