/** A source of time, injected everywhere time matters so tests can step it. */
export interface Clock {
  now(): Date
}

/** The wall clock. */
export const systemClock: Clock = { now: () => new Date() }

/** A clock that only moves when told to; for deterministic tests. */
export class ManualClock implements Clock {
  private ms: number
  constructor(start: Date | string = '2026-01-01T00:00:00Z') {
    this.ms = new Date(start).getTime()
  }
  now(): Date {
    return new Date(this.ms)
  }
  /** Moves the clock forward by `ms` milliseconds. */
  advance(ms: number): void {
    this.ms += ms
  }
  /** Sets the clock to an absolute time. */
  set(at: Date | string): void {
    this.ms = new Date(at).getTime()
  }
}

/** RFC 3339 UTC string, the wire format of every timestamp. */
export function iso(d: Date): string {
  return d.toISOString()
}
