import { defineRoute, type RouteDef } from '../../platform/http/route'
import { errorEvent, sseResponse } from '../../platform/http/sse'
import { CorpusParams, StreamErrorEvent } from '../answers/answers.schemas'
import {
  LevelRecord,
  ScaleDoneEvent,
  ScaleRunResp,
  ScaleRunSaveReq,
  ScaleStartEvent,
  ScaleTestReq,
} from './scale.schemas'
import type { ScaleService } from './scale.service'

/** Scale test and saved scale runs (spec: Compare, scale test, economics). */
export function scaleRoutes(scale: ScaleService): RouteDef[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/corpora/:corpus_id/scale-test/stream',
      auth: 'bearer',
      scope: 'query',
      summary: 'Load both strategies at concurrency levels halving from the maximum to 1, streamed per level',
      description:
        'Server-sent events: `start` `{start, queries, levels, strategies, transport}`, one `level` record per ' +
        'level `{level, cart: {qps, ok, reqs, ttft, ttft_p95, lat, lat_p95, cpu_ms}, rag: {...}}`, then `done` ' +
        '`{done, stopped, levels_run, elapsed_ms}` (`stopped`: complete, time_limit or aborted). Each strategy ' +
        'is loaded in turn through the chat stream route, over HTTP with the caller’s credential once the server ' +
        'listens (`transport: http`). Queries are sampled from the base when none are given. Bounded by ' +
        '`[scale_test]` max_seconds and max_requests_per_level; one test at a time per workspace ' +
        '(409 `scale_test_in_progress`) and at most `[scale_test]` max_per_hour started per workspace and hour ' +
        '(429 `rate_limited` with Retry-After); a client that disconnects stops the test.',
      tags: ['economics'],
      params: CorpusParams,
      body: ScaleTestReq,
      produces: 'text/event-stream',
      events: { start: ScaleStartEvent, level: LevelRecord, done: ScaleDoneEvent, error: StreamErrorEvent },
      errors: ['corpus_not_ready', 'scale_test_in_progress', 'rate_limited'],
      idempotent: false,
      // The records go to sseResponse as they are (no mapping generator between): its return() must
      // reach abortOnReturn at once, not queue behind a record being waited for.
      handler: async ({ principal, params, body, request }) =>
        sseResponse(
          await scale.scaleTestStream(
            principal,
            params.corpus_id,
            body,
            request.headers.get('authorization'),
          ),
          { terminal: ['done', 'error'], onError: errorEvent('The scale test failed.'), keepAliveMs: 15_000 },
        ),
    }),
    defineRoute({
      method: 'POST',
      path: '/corpora/:corpus_id/scale-runs',
      auth: 'bearer',
      scope: 'query',
      summary: 'Keep a finished scale run',
      tags: ['economics'],
      params: CorpusParams,
      body: ScaleRunSaveReq,
      response: ScaleRunResp,
      handler: ({ principal, params, body }) => scale.saveRun(principal, params.corpus_id, body),
    }),
    defineRoute({
      method: 'GET',
      path: '/corpora/:corpus_id/scale-runs',
      auth: 'bearer',
      scope: 'query',
      summary: 'List the kept scale runs of a base, newest first',
      tags: ['economics'],
      params: CorpusParams,
      list: true,
      response: ScaleRunResp,
      handler: ({ principal, params, page }) => scale.listRuns(principal, params.corpus_id, page),
    }),
  ]
}
