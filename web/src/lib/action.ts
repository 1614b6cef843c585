/**
 * What a form or a dialog does with the server, in one place: whether it is running (its button
 * shows busy and cannot be pressed twice), the refusal in the API's words, and a way to run it. A
 * failure is kept to be shown, never thrown: every caller showed it the same way. Trying again is
 * running again (the error is cleared as it starts); the busy engine's countdowns of chat and
 * compare try again with a new attempt number, so they call `run`, not a replay of the last call.
 */
import { useRef, useState } from 'preact/hooks'

/** An action's state and controls. */
export interface Action<A extends unknown[]> {
  busy: boolean
  error: Error | null
  /** The arguments of the latest run (which row's button is busy), null before any. */
  args: A | null
  /** Runs the work; `busy` while it runs, `error` if it fails. */
  run: (...args: A) => Promise<void>
  /** Forgets the error (a dialog closed). */
  reset: () => void
}

/** Options: `leaves`, the work ends by leaving the page: it stays busy after success. */
export interface ActionOptions {
  /**
   * The work ends by moving to another page (sign-in, a new base): the button stays busy until the
   * page goes, so it cannot be sent twice in between.
   */
  leaves?: boolean
}

/**
 * An action that runs `work`. The work is called at once, in the same turn as `run` (a submit
 * handler can still `preventDefault()` and read its form); its latest version is the one run.
 */
export function useAction<A extends unknown[]>(
  work: (...args: A) => Promise<unknown>,
  opts: ActionOptions = {},
): Action<A> {
  const [state, setState] = useState<{ busy: boolean; error: Error | null; args: A | null }>({
    busy: false,
    error: null,
    args: null,
  })
  const latest = useRef(work)
  latest.current = work
  const run = async (...args: A) => {
    setState({ busy: true, error: null, args })
    try {
      await latest.current(...args)
      if (!opts.leaves) setState((s) => ({ ...s, busy: false }))
    } catch (e) {
      setState({ busy: false, error: e as Error, args })
    }
  }
  return {
    ...state,
    run,
    reset: () => setState((s) => ({ ...s, error: null })),
  }
}
