/**
 * The upload queue of a base: files wait, then go a few at a time, one request each, so every file
 * has its own progress and its own error; failed files can be sent again. `onIdle` runs each time
 * the queue empties (the page then reloads the base's counters and documents once, not per file).
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks'
import { type UploadRequest, uploadFile } from '../api/uploads'
import type { PickedFile } from './dropped-files'

/** Requests in flight at once: enough to keep the line busy, few enough for each bar to move. */
const PARALLEL = 3

/** `processing`: every byte is sent and the server is storing and checking the file. */
export type UploadState = 'queued' | 'sending' | 'processing' | 'done' | 'failed' | 'stopped'

/** One file of the queue. */
export interface UploadItem {
  key: number
  file: File
  path: string
  state: UploadState
  sent: number
  total: number
  error: Error | null
}

/** What the upload panel reads and does. */
export interface Uploads {
  items: UploadItem[]
  add(files: PickedFile[]): void
  retry(key: number): void
  retryFailed(): void
  /** Stops a file in flight, or takes a waiting one out of the queue. */
  stop(key: number): void
  /** Forgets files that are done or stopped. */
  clearFinished(): void
}

let nextKey = 1

/** The upload queue of base `corpusId`. */
export function useUploads(corpusId: string, onIdle: () => void): Uploads {
  const [items, setItems] = useState<UploadItem[]>([])
  const running = useRef(new Map<number, UploadRequest>())
  const busy = useRef(false)
  const idle = useRef(onIdle)
  idle.current = onIdle

  const patch = useCallback((key: number, change: Partial<UploadItem>) => {
    setItems((all) => all.map((i) => (i.key === key ? { ...i, ...change } : i)))
  }, [])

  const start = useCallback(
    (item: UploadItem) => {
      const req = uploadFile(corpusId, item.file, item.path, (sent, total) =>
        patch(item.key, { sent, total, state: sent >= total ? 'processing' : 'sending' }),
      )
      running.current.set(item.key, req)
      patch(item.key, { state: 'sending', sent: 0, total: item.file.size, error: null })
      req.done.then(
        () => patch(item.key, { state: 'done', sent: item.file.size, total: item.file.size }),
        (error: Error) =>
          patch(item.key, error.name === 'AbortError' ? { state: 'stopped' } : { state: 'failed', error }),
      )
      req.done.catch(() => undefined).finally(() => running.current.delete(item.key))
    },
    [corpusId, patch],
  )

  // The pump: start waiting files while there is room; tell the page when all has gone.
  useEffect(() => {
    const active = items.filter((i) => i.state === 'sending' || i.state === 'processing').length
    let room = PARALLEL - active
    for (const item of items) {
      if (room <= 0) break
      if (item.state === 'queued' && !running.current.has(item.key)) {
        start(item)
        room--
      }
    }
    const working = items.some(
      (i) => i.state === 'queued' || i.state === 'sending' || i.state === 'processing',
    )
    if (working) busy.current = true
    else if (busy.current) {
      busy.current = false
      idle.current()
    }
  }, [items, start])

  // Leaving the page stops what is still being sent (nothing half-sent is kept by the server).
  useEffect(() => {
    const map = running.current
    return () => {
      for (const req of map.values()) req.abort()
    }
  }, [])

  return {
    items,
    add: (files) =>
      setItems((all) => [
        ...all,
        ...files.map((f) => ({
          key: nextKey++,
          file: f.file,
          path: f.path,
          state: 'queued' as const,
          sent: 0,
          total: f.file.size,
          error: null,
        })),
      ]),
    retry: (key) => patch(key, { state: 'queued', error: null, sent: 0 }),
    retryFailed: () =>
      setItems((all) =>
        all.map((i) => (i.state === 'failed' ? { ...i, state: 'queued', error: null, sent: 0 } : i)),
      ),
    stop: (key) => {
      const req = running.current.get(key)
      if (req) req.abort()
      else patch(key, { state: 'stopped' })
    },
    clearFinished: () => setItems((all) => all.filter((i) => i.state !== 'done' && i.state !== 'stopped')),
  }
}
