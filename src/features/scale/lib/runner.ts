/**
 * One record of a scale test as it streams: `start`, one `level` per level, then `done`. The records
 * are the feature's own published format (a saved run keeps the `level` ones as they are), so the
 * route streams them unchanged.
 */
export interface ScaleRecord {
  /** `start`, `level` or `done`. */
  event: string
  data: unknown
}

/** The two serving strategies. */
export type Strategy = 'cart' | 'rag'

/** What one query of a scale test measured. */
export interface Probe {
  ok: boolean
  /** Milliseconds to the first piece of the answer. */
  ttftMs: number
  /** Milliseconds to the end of the answer. */
  latencyMs: number
}

/** One strategy's figures at one level (the wire shape of a scale record's `cart` and `rag`). */
export interface LevelStats {
  qps: number
  ok: number
  reqs: number
  ttft: number | null
  ttft_p95: number | null
  lat: number | null
  lat_p95: number | null
  /** Mean CPU time per query at this level, in milliseconds (process CPU over the phase / queries). */
  cpu_ms: number | null
}

/** A timer that can be cancelled; injected so the bounds are testable without waiting. */
export interface Timer {
  /** Monotonic milliseconds. */
  now(): number
  /** Resolves after `ms` (at once when `ms <= 0`) unless cancelled first. */
  after(ms: number): { done: Promise<void>; cancel(): void }
}

/** What a scale test needs: one query sender, a timer and (optionally) a CPU meter. */
export interface ScaleDeps {
  /** Sends one query with one strategy. A rejection counts as a failed query. */
  send(strategy: Strategy, query: string, signal: AbortSignal): Promise<Probe>
  timer: Timer
  /** Process CPU time in milliseconds; figures per level are left null without it. */
  cpuMs?: () => number
}

/** The plan of a test: queries, levels, strategies and the bounds. */
export interface ScalePlan {
  queries: string[]
  levels: number[]
  strategies: readonly Strategy[]
  /** The whole test ends within this many seconds. */
  maxSeconds: number
  /** Most queries sent to one strategy at one level. */
  maxRequestsPerLevel: number
  /** How the queries reach the server (`http` or `in_process`), echoed in the start record. */
  transport?: string
}

/** The real timer: performance.now and setTimeout. */
export const realTimer: Timer = {
  now: () => performance.now(),
  after(ms) {
    let handle: ReturnType<typeof setTimeout> | undefined
    const done = new Promise<void>((resolve) => {
      handle = setTimeout(resolve, Math.max(0, ms))
    })
    return { done, cancel: () => clearTimeout(handle) }
  },
}

/** Concurrency levels: halving from the maximum down to 1 (24 -> 24, 12, 6, 3, 1). */
export function levelRamp(max: number): number[] {
  const out: number[] = []
  for (let level = Math.max(1, Math.floor(max)); level > 1; level = Math.floor(level / 2)) out.push(level)
  out.push(1)
  return out
}

/** The p-th percentile (0..1) of sorted values by the nearest-rank rule; null when empty. */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null
  const rank = Math.ceil(p * sorted.length)
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))] ?? null
}

/**
 * Runs a scale test and yields its records: `start`, one `level` record per level (each strategy in
 * turn, never both at once, so they do not share the machine), then `done`. The test's time budget
 * is shared out over the phases still to run, and a phase that overruns the whole budget is cut off
 * at it. Aborting `signal` (the client went away) stops sending at once and ends the test.
 */
export async function* runScaleTest(
  plan: ScalePlan,
  deps: ScaleDeps,
  signal: AbortSignal,
): AsyncGenerator<ScaleRecord> {
  const { timer } = deps
  const started = timer.now()
  const deadline = started + plan.maxSeconds * 1000
  yield {
    event: 'start',
    data: {
      start: true,
      queries: plan.queries,
      levels: plan.levels,
      strategies: plan.strategies,
      ...(plan.transport ? { transport: plan.transport } : {}),
    },
  }
  let phasesLeft = plan.levels.length * plan.strategies.length
  let stopped: 'complete' | 'time_limit' | 'aborted' = 'complete'
  let levelsRun = 0
  for (const level of plan.levels) {
    const record: Record<string, unknown> = { level }
    let cut = false
    for (const strategy of plan.strategies) {
      if (signal.aborted) break
      const phaseEnd = timer.now() + (deadline - timer.now()) / phasesLeft
      phasesLeft--
      if (cut) {
        // The budget is spent: the other strategy gets an empty record rather than a skewed one.
        record[strategy] = summarise([], [], 0, 0, null)
        continue
      }
      const result = await runPhase(plan, deps, signal, { strategy, level, phaseEnd, deadline })
      record[strategy] = result.stats
      cut = result.cut
    }
    if (signal.aborted) {
      stopped = 'aborted'
      break
    }
    if (cut) record.partial = true
    levelsRun++
    yield { event: 'level', data: record }
    if (cut) {
      stopped = 'time_limit'
      break
    }
  }
  yield {
    event: 'done',
    data: { done: true, stopped, levels_run: levelsRun, elapsed_ms: round(timer.now() - started, 1) },
  }
}

/** Wraps a generator so that `return()` (the client went away) aborts `controller` at once. */
export function abortOnReturn(
  gen: AsyncGenerator<ScaleRecord>,
  controller: AbortController,
  onStop: () => void = () => {},
): AsyncGenerator<ScaleRecord> {
  const wrapped = {
    next: (...args: [] | [unknown]) => gen.next(...args),
    return: (value: unknown) => {
      // An async generator queues return() behind a running next(); the abort reaches the work now.
      controller.abort()
      // Once the work has stopped (its queries in flight settled). A generator that never started
      // runs no `finally`; this hook still runs.
      return gen.return(value as undefined).finally(onStop)
    },
    throw: (e: unknown) => {
      controller.abort()
      return gen.throw(e).finally(onStop)
    },
    [Symbol.asyncIterator]() {
      return wrapped
    },
  }
  return wrapped as unknown as AsyncGenerator<ScaleRecord>
}

interface Phase {
  strategy: Strategy
  level: number
  /** When this phase stops sending new queries. */
  phaseEnd: number
  /** When the whole test must be over; queries still running then are abandoned. */
  deadline: number
}

/** Runs `level` workers against one strategy until the request cap, the phase's end or an abort. */
async function runPhase(
  plan: ScalePlan,
  deps: ScaleDeps,
  signal: AbortSignal,
  phase: Phase,
): Promise<{ stats: LevelStats; cut: boolean }> {
  const { timer } = deps
  const t0 = timer.now()
  const cpu0 = deps.cpuMs?.()
  const ttfts: number[] = []
  const lats: number[] = []
  let issued = 0
  let reqs = 0
  let next = 0
  // Stops this phase's workers and their queries: on the client's abort or at the test's deadline.
  const stop = new AbortController()
  const onAbort = () => stop.abort()
  signal.addEventListener('abort', onAbort, { once: true })
  if (signal.aborted) stop.abort()
  const worker = async () => {
    while (!stop.signal.aborted && issued < plan.maxRequestsPerLevel && timer.now() < phase.phaseEnd) {
      const query = plan.queries[next++ % plan.queries.length]!
      issued++
      const probe = await deps.send(phase.strategy, query, stop.signal).catch(() => null)
      if (stop.signal.aborted) return
      reqs++
      if (probe?.ok) {
        ttfts.push(probe.ttftMs)
        lats.push(probe.latencyMs)
      }
    }
  }
  const hardStop = timer.after(phase.deadline - timer.now())
  const stopped = new Promise<false>((resolve) => {
    if (stop.signal.aborted) resolve(false)
    else stop.signal.addEventListener('abort', () => resolve(false), { once: true })
  })
  const workers = Promise.all(Array.from({ length: phase.level }, worker))
  const finished = await Promise.race([workers.then(() => true), hardStop.done.then(() => false), stopped])
  signal.removeEventListener('abort', onAbort)
  // Queries still running at the test's deadline are abandoned: their results are not counted.
  const cut = !finished && !signal.aborted
  stop.abort()
  // The client went away: the queries in flight stop at their next event, and the test ends once
  // they have (a question is counted as it opens), not while they still write; the deadline still
  // bounds the wait.
  if (!finished && signal.aborted) await Promise.race([workers, hardStop.done])
  hardStop.cancel()
  const elapsed = timer.now() - t0
  const cpu = cpu0 !== undefined && deps.cpuMs ? deps.cpuMs() - cpu0 : null
  return { stats: summarise(ttfts, lats, reqs, elapsed, cpu), cut }
}

/** A phase's figures: throughput of answered queries and p50/p95 of their timings. */
export function summarise(
  ttfts: number[],
  lats: number[],
  reqs: number,
  elapsedMs: number,
  cpuMs: number | null,
): LevelStats {
  const ok = lats.length
  const t = [...ttfts].sort((a, b) => a - b)
  const l = [...lats].sort((a, b) => a - b)
  const ms = (x: number | null) => (x === null ? null : round(x, 2))
  return {
    qps: elapsedMs > 0 ? round(ok / (elapsedMs / 1000), 1) : 0,
    ok,
    reqs,
    ttft: ms(percentile(t, 0.5)),
    ttft_p95: ms(percentile(t, 0.95)),
    lat: ms(percentile(l, 0.5)),
    lat_p95: ms(percentile(l, 0.95)),
    cpu_ms: cpuMs === null || reqs === 0 ? null : round(cpuMs / reqs, 3),
  }
}

function round(x: number, digits: number): number {
  const f = 10 ** digits
  return Math.round(x * f) / f
}
