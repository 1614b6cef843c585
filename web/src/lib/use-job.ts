import { useEffect, useRef, useState } from 'preact/hooks'
import { getJob, isFinished } from '../api/bases'
import type { Job } from '../api/types'

/** How often a running job is asked for its progress. */
export const POLL_MS = 500

/**
 * Follows a job: answers `job` as given, then, while it has not finished, its state from
 * `GET /v1/jobs/{id}` about every 500 ms (each poll waits for the one before, so a slow server is
 * never asked twice at once). `onFinished` runs once when it ends. A failed poll is tried again.
 */
export function useJob(
  job: Job | null,
  onFinished: (job: Job) => void,
): { job: Job | null; error: Error | null } {
  const [latest, setLatest] = useState<Job | null>(job)
  const [error, setError] = useState<Error | null>(null)
  const finished = useRef(onFinished)
  finished.current = onFinished

  useEffect(() => {
    setLatest(job)
    setError(null)
    if (!job || isFinished(job)) return
    const abort = new AbortController()
    let timer: ReturnType<typeof setTimeout> | undefined
    const poll = async () => {
      try {
        const next = await getJob(job.id, abort.signal)
        if (abort.signal.aborted) return
        setLatest(next)
        setError(null)
        if (isFinished(next)) {
          finished.current(next)
          return
        }
      } catch (e) {
        if (abort.signal.aborted) return
        setError(e as Error)
      }
      timer = setTimeout(poll, POLL_MS)
    }
    timer = setTimeout(poll, POLL_MS)
    return () => {
      abort.abort()
      clearTimeout(timer)
    }
  }, [job?.id, job?.status])

  return { job: latest, error }
}
