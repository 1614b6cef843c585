/**
 * Compare, the scale test and economics, as the compare page reads them
 * (`/v1/corpora/{id}/compare`, `/scale-test/stream`, `/scale-runs`, `/economics`).
 */
import { http, listAll, ok } from './client'
import { readEvents, type StreamEvent } from './stream'
import type { CompareResp, Economics, LevelRecord, ScaleRun } from './types'

const base = (id: string) => ({ path: { corpus_id: id } })

/** One question through both strategies, side by side. */
export function compareBoth(baseId: string, question: string, signal: AbortSignal): Promise<CompareResp> {
  return ok(
    http.POST('/v1/corpora/{corpus_id}/compare', {
      params: { path: { corpus_id: baseId }, query: { side: 'both' } },
      body: { question },
      signal,
    }),
  )
}

/** What serving the base costs with each strategy at `queriesPerMonth`. */
export function getEconomics(
  baseId: string,
  queriesPerMonth: number,
  signal?: AbortSignal,
): Promise<Economics> {
  return ok(
    http.GET('/v1/corpora/{corpus_id}/economics', {
      params: { path: { corpus_id: baseId }, query: { queries_per_month: queriesPerMonth } },
      signal,
    }),
  )
}

/**
 * Runs a scale test and yields its events as they arrive (`start`, a `level` each, `done` or
 * `error`). Throws `ApiError` when the server refuses before the stream starts.
 */
export async function* scaleTestStream(
  baseId: string,
  body: { max_concurrency: number; queries?: string[] },
  signal: AbortSignal,
): AsyncGenerator<StreamEvent> {
  const { data } = await http.POST('/v1/corpora/{corpus_id}/scale-test/stream', {
    params: base(baseId),
    body,
    headers: { accept: 'text/event-stream' },
    parseAs: 'stream',
    signal,
  })
  yield* readEvents(data)
}

/** The base's saved scale test runs, newest first. */
export function listScaleRuns(baseId: string, signal?: AbortSignal): Promise<ScaleRun[]> {
  return listAll((cursor) =>
    ok(
      http.GET('/v1/corpora/{corpus_id}/scale-runs', {
        params: { path: { corpus_id: baseId }, query: { limit: 100, cursor } },
        signal,
      }),
    ),
  )
}

/** Keeps a finished scale test run. */
export async function saveScaleRun(
  baseId: string,
  run: { queries: string[]; max_concurrency: number; records: LevelRecord[]; note?: string },
): Promise<void> {
  await http.POST('/v1/corpora/{corpus_id}/scale-runs', { params: base(baseId), body: run })
}
