/**
 * A 503 with Retry-After is the server asking to be tried again shortly, not a failure: this shows
 * the seconds left, counts down, then calls `onRetry` by itself. The user may retry now or give up.
 */
import { useEffect, useRef, useState } from 'preact/hooks'

/** Counts `seconds` down once a second, then calls `onRetry`; `attempt` restarts the count. */
export function RetryCountdown(props: {
  seconds: number
  attempt: number
  message: string
  onRetry: () => void
  onCancel: () => void
}) {
  const [left, setLeft] = useState(Math.max(1, Math.ceil(props.seconds)))
  // The latest callback without restarting the timer when the parent renders again.
  const retry = useRef(props.onRetry)
  retry.current = props.onRetry
  useEffect(() => {
    const total = Math.max(1, Math.ceil(props.seconds))
    const end = Date.now() + total * 1000
    setLeft(total)
    const timer = setInterval(() => {
      const s = Math.ceil((end - Date.now()) / 1000)
      if (s <= 0) {
        clearInterval(timer)
        retry.current()
      } else setLeft(s)
    }, 250)
    return () => clearInterval(timer)
  }, [props.seconds, props.attempt])
  return (
    <div class="alert alert-warn retry" role="status">
      <p>
        {props.message} Trying again in <strong class="retry-seconds">{left}</strong>{' '}
        {left === 1 ? 'second' : 'seconds'}
        {props.attempt > 2 ? ` (tried ${props.attempt - 1} times so far)` : ''}.
      </p>
      <div class="actions">
        <button type="button" class="btn btn-plain btn-small" onClick={() => retry.current()}>
          Try now
        </button>
        <button type="button" class="btn btn-plain btn-small" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </div>
  )
}
