import { workerScriptPath } from '../../../platform/concurrency/worker-path'
import type { ScalePlan, ScaleRecord, Timer } from './runner'

/** What the load worker is started with. */
export interface WorkerStart {
  type: 'start'
  plan: ScalePlan
  /** The chat stream route of the base on this server's own address. */
  url: string
  /** The caller's credential, so the load is served exactly as the caller's queries are. */
  authorization: string
  /** Headers sent with every query besides: the one that has usage count them as load. */
  headers?: Record<string, string>
}

/** Messages the worker posts. */
type WorkerMsg =
  | { type: 'ready' }
  | { type: 'event'; event: ScaleRecord }
  | { type: 'error'; message: string }
  | { type: 'end' }

/** The worker as this file uses it (a Web Worker, or a stand-in in tests). */
export interface LoadWorker {
  postMessage(msg: unknown): void
  terminate(): void
  onmessage: ((e: MessageEvent) => void) | null
  onerror: ((e: ErrorEvent) => void) | null
}

/**
 * Where the worker script is: beside this file from a checkout; in the compiled executable, where
 * `bun build --compile src/main.ts src/features/scale/lib/load-worker.ts` puts it (entry points
 * keep their paths below `src/`). A build without it makes the worker fail to start, and the
 * scale test then runs in process.
 */
export function loadWorkerPath(moduleUrl: string = import.meta.url): string {
  return workerScriptPath(moduleUrl, 'load-worker.ts', 'features/scale/lib/load-worker.ts')
}

/** Starts the load worker script. */
export function spawnLoadWorker(): LoadWorker {
  return new Worker(loadWorkerPath()) as unknown as LoadWorker
}

/**
 * Runs a scale test in a load worker and yields its events. `signal` (the client went away)
 * terminates the worker at once. A worker that cannot start (its script is missing from a build)
 * yields from `fallback` instead; one that goes silent past `watchdogMs` is terminated and the test
 * ends with `stopped: "time_limit"`.
 */
export async function* runInWorker(
  spawn: () => LoadWorker,
  start: WorkerStart,
  opts: {
    signal: AbortSignal
    timer: Timer
    watchdogMs: number
    fallback: () => AsyncGenerator<ScaleRecord>
  },
): AsyncGenerator<ScaleRecord> {
  const queue: WorkerMsg[] = []
  let wake: (() => void) | null = null
  const push = (m: WorkerMsg) => {
    queue.push(m)
    wake?.()
  }
  let worker: LoadWorker
  try {
    worker = spawn()
  } catch {
    yield* opts.fallback()
    return
  }
  worker.onmessage = (e) => push(e.data as WorkerMsg)
  worker.onerror = (e) => push({ type: 'error', message: e.message || 'The load worker failed.' })
  const onAbort = () => push({ type: 'end' })
  opts.signal.addEventListener('abort', onAbort, { once: true })
  const watchdog = opts.timer.after(opts.watchdogMs)
  let timedOut = false
  void watchdog.done.then(() => {
    timedOut = true
    push({ type: 'end' })
  })
  let ready = false
  let lastDone = false
  try {
    worker.postMessage(start)
    for (;;) {
      while (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve))
      wake = null
      const m = queue.shift()!
      if (m.type === 'ready') ready = true
      else if (m.type === 'event') {
        lastDone = m.event.event === 'done'
        yield m.event
      } else if (m.type === 'error') {
        if (!ready) {
          worker.terminate()
          yield* opts.fallback()
          return
        }
        throw new Error(m.message)
      } else {
        if (timedOut && !lastDone) {
          yield { event: 'done', data: { done: true, stopped: 'time_limit', levels_run: null } }
        }
        return
      }
    }
  } finally {
    watchdog.cancel()
    opts.signal.removeEventListener('abort', onAbort)
    worker.postMessage({ type: 'abort' })
    worker.terminate()
  }
}
