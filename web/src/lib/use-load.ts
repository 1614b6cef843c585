import { useCallback, useEffect, useState } from 'preact/hooks'

/** What a page knows of data it loads: the value, the error in the API's words, and a reload. */
export interface Loaded<T> {
  data: T | undefined
  error: Error | undefined
  loading: boolean
  reload: () => void
}

/** Loads data for a component, again whenever `deps` change or `reload` is called. */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: Error; loading: boolean }>({ loading: true })
  const [round, setRound] = useState(0)
  useEffect(() => {
    const abort = new AbortController()
    setState((s) => ({ ...s, loading: true }))
    load(abort.signal).then(
      (data) => !abort.signal.aborted && setState({ data, loading: false }),
      (error: Error) => !abort.signal.aborted && setState((s) => ({ data: s.data, error, loading: false })),
    )
    return () => abort.abort()
  }, [...deps, round])
  const reload = useCallback(() => setRound((r) => r + 1), [])
  return { data: state.data, error: state.error, loading: state.loading, reload }
}
