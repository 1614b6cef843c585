import { useEffect } from 'preact/hooks'
import { POLL_MS } from './use-job'
import type { Loaded } from './use-load'

/**
 * Loads `load` again about every `ms` while `active`. The next load is asked for only once the one
 * before has answered, so a slow server is never asked twice at once.
 */
export function usePoll(load: Loaded<unknown>, active: boolean, ms = POLL_MS): void {
  useEffect(() => {
    if (!active || load.loading) return
    const timer = setTimeout(load.reload, ms)
    return () => clearTimeout(timer)
  }, [active, load.loading, load.data, ms])
}
