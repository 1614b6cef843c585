import { useCallback, useEffect, useRef, useState } from 'preact/hooks'
import type { Page } from '../api/client'

/** A `/v1` list read a page at a time: the items so far, whether there are more, and how to get them. */
export interface CursorPages<T> {
  items: T[] | undefined
  error: Error | undefined
  loading: boolean
  more: boolean
  loadMore: () => void
  reload: () => void
}

/**
 * Reads a list a page of `limit` at a time through `page` (for lists that can be long, like a
 * base's documents); again from the first page whenever `deps` change or `reload` is called.
 */
export function useCursorPages<T>(
  page: (cursor: string | undefined, limit: number, signal: AbortSignal) => Promise<Page<T>>,
  deps: unknown[],
  limit = 100,
): CursorPages<T> {
  const [items, setItems] = useState<T[] | undefined>(undefined)
  const [cursor, setCursor] = useState<string | null>(null)
  const [error, setError] = useState<Error | undefined>(undefined)
  const [loading, setLoading] = useState(true)
  const [round, setRound] = useState(0)
  const abort = useRef<AbortController | null>(null)

  const fetchPage = useCallback(
    (after: string | null, append: boolean) => {
      abort.current?.abort()
      const ctl = new AbortController()
      abort.current = ctl
      setLoading(true)
      page(after ?? undefined, limit, ctl.signal).then(
        (p) => {
          if (ctl.signal.aborted) return
          setItems((old) => (append && old ? [...old, ...p.items] : p.items))
          setCursor(p.next_cursor)
          setError(undefined)
          setLoading(false)
        },
        (e: Error) => {
          if (ctl.signal.aborted) return
          setError(e)
          setLoading(false)
        },
      )
    },
    [limit, ...deps],
  )

  useEffect(() => {
    fetchPage(null, false)
    return () => abort.current?.abort()
  }, [fetchPage, round])

  return {
    items,
    error,
    loading,
    more: cursor !== null,
    loadMore: () => fetchPage(cursor, true),
    reload: useCallback(() => setRound((r) => r + 1), []),
  }
}
