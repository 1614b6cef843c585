// What a sync or import run gives its connector: a stop signal and a checkpoint that every request
// goes through, and a check that a paged listing moves on. A source's server is the tenant's to
// choose (an S3 endpoint) or can misbehave: a listing that answers "more to come" forever with
// nothing in it held a worker slot for good, renewing its lease, deaf to cancel (issue 32).
import { type ConnectorEnv, SourceError } from './connector'

/** What the run's job offers: its stop signal, and the check that throws once it must stop. */
export interface RunControl {
  signal: AbortSignal
  checkpoint(): void
}

/**
 * The connector environment of one run: `checkpoint` and `signal` set, and every request through
 * `fetch` or judged by `checkHost` checks the run first and is aborted with it.
 */
export function forRun(env: ConnectorEnv, run: RunControl): ConnectorEnv {
  const fetch = ((input: RequestInfo | URL, init?: RequestInit) => {
    run.checkpoint()
    const signal = init?.signal ? AbortSignal.any([init.signal, run.signal]) : run.signal
    return env.fetch(input, { ...init, signal })
  }) as typeof env.fetch
  return {
    ...env,
    signal: run.signal,
    checkpoint: () => run.checkpoint(),
    fetch,
    checkHost: (urlOrHost) => {
      run.checkpoint()
      return env.checkHost(urlOrHost)
    },
  }
}

/**
 * Empty pages in a row after which a listing is taken to be going nowhere. S3 may answer a page
 * with no keys but more to come (a run of delete markers in a versioned bucket), rarely many in a
 * row; a hundred is far past what a real listing does and a few seconds of a hostile one.
 */
export const EMPTY_PAGES_LIMIT = 100

/** Page tokens remembered to tell a listing that goes round in a short loop. */
const RECENT_TOKENS = 16

/**
 * Watches a paged listing: before each page the run's checkpoint, after it whether the listing
 * moved on. Too many empty pages in a row, or a page token it was given before, end the run with
 * SourceError `no_progress` ("The bucket's listing made no progress after 100 pages."); longer
 * loops are ended by the run's time budget.
 */
export class PageProgress {
  private pages = 0
  private emptyInARow = 0
  private readonly recent: string[] = []

  constructor(
    /** What is listed, as the message names it: "The bucket's listing". */
    private readonly what: string,
    private readonly env: ConnectorEnv,
    private readonly limit = EMPTY_PAGES_LIMIT,
  ) {}

  /** Call before asking for a page. */
  before(): void {
    this.env.checkpoint?.()
  }

  /** Call with what a page held and the token of the next (null at the end). */
  after(entries: number, next: string | null): void {
    this.pages++
    this.emptyInARow = entries === 0 && next !== null ? this.emptyInARow + 1 : 0
    if (this.emptyInARow >= this.limit) throw this.stalled('')
    if (next === null) return
    if (this.recent.includes(next)) throw this.stalled(': the server sent a page token it had sent before')
    this.recent.push(next)
    if (this.recent.length > RECENT_TOKENS) this.recent.shift()
  }

  /** A listing that went back to an entry it had passed (S3 lists keys in order). */
  wentBack(): SourceError {
    return this.stalled(': the server listed again keys it had listed')
  }

  private stalled(why: string): SourceError {
    return new SourceError('no_progress', `${this.what} made no progress after ${this.pages} pages${why}.`)
  }
}
