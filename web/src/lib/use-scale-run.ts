/**
 * A scale test as it runs: the plan the server announced, each level as it is measured, and how
 * it stopped; or a saved run shown again. Stopping aborts the stream (the server then stops).
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import { scaleTestStream } from '../api/economics'
import type { LevelRecord, ScaleDone, ScaleRun, ScaleStart } from '../api/types'

/** A run measured now, or a saved one shown again. */
export interface Run {
  plan: ScaleStart | null
  records: LevelRecord[]
  done: ScaleDone | null
  maxConcurrency: number
  /** A saved run shown again, rather than one measured now. */
  saved?: ScaleRun
}

/** The run shown, whether one is being measured, its error, and how to start, stop or show one. */
export interface ScaleRunState {
  run: Run | null
  running: boolean
  error: Error | null
  start: (maxConcurrency: number, queries: string[]) => Promise<void>
  stop: () => void
  show: (saved: ScaleRun) => void
}

/** The scale test of base `baseId`. */
export function useScaleRun(baseId: string): ScaleRunState {
  const [run, setRun] = useState<Run | null>(null)
  const [running, setRunning] = useState(false)
  const [error, setError] = useState<Error | null>(null)
  const abort = useRef<AbortController | null>(null)

  // Leaving the page stops the test.
  useEffect(() => () => abort.current?.abort(), [])

  // A stream, not a one-shot action: its `error` events are shown while it carries on to `done`.
  async function start(max: number, qs: string[]) {
    const controller = new AbortController()
    abort.current = controller
    setError(null)
    setRunning(true)
    let current: Run = { plan: null, records: [], done: null, maxConcurrency: max }
    setRun(current)
    const update = (change: Partial<Run>) => {
      current = { ...current, ...change }
      setRun(current)
    }
    try {
      const events = scaleTestStream(
        baseId,
        { max_concurrency: max, queries: qs.length ? qs : undefined },
        controller.signal,
      )
      for await (const e of events) {
        if (e.event === 'start') update({ plan: e.data as ScaleStart })
        else if (e.event === 'level') update({ records: [...current.records, e.data as LevelRecord] })
        else if (e.event === 'done') update({ done: e.data as ScaleDone })
        else if (e.event === 'error') setError(new Error((e.data as { error: string }).error))
      }
    } catch (err) {
      if (controller.signal.aborted)
        update({ done: { done: true, stopped: 'aborted', levels_run: current.records.length } })
      else setError(err as Error)
    } finally {
      setRunning(false)
      abort.current = null
    }
  }

  return {
    run,
    running,
    error,
    start,
    stop: () => abort.current?.abort(),
    show: (r) =>
      setRun({ plan: null, records: r.records, done: null, maxConcurrency: r.max_concurrency, saved: r }),
  }
}
