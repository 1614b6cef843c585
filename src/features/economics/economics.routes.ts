import { defineRoute, type RouteDef } from '../../platform/http/route'
import { errorEvent, sseFrom } from '../../platform/http/sse'
import {
  ChatDeltaEvent,
  ChatHeadEvent,
  ChatReq,
  CorpusParams,
  SERVING_ERRORS,
  StreamErrorEvent,
} from '../answers/answers.schemas'
import {
  CompareQuery,
  CompareResp,
  CompareStreamQuery,
  CompareSummaryEvent,
  EconomicsQuery,
  EconomicsResp,
  toCompareResp,
  toCompareSse,
} from './economics.schemas'
import type { EconomicsService } from './economics.service'

const QPM = 100_000

/** Compare and economics (spec: Compare, scale test, economics). */
export function economicsRoutes(economics: EconomicsService): RouteDef[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/corpora/:corpus_id/compare',
      auth: 'bearer',
      scope: 'query',
      summary: 'Answer one question with each strategy and compare measured latency and cost',
      description:
        'Runs the ChatReq through `side` (both, cart or rag; the body’s `strategy` is ignored). Costs come ' +
        'from the measured CPU time, context tokens and warm memory priced on the `[rates]` rate card.',
      tags: ['economics'],
      params: CorpusParams,
      query: CompareQuery,
      body: ChatReq,
      response: CompareResp,
      errors: SERVING_ERRORS,
      handler: async ({ principal, params, query, body }) =>
        toCompareResp(
          await economics.compare(
            principal,
            params.corpus_id,
            body,
            query.side ?? 'both',
            query.queries_per_month ?? QPM,
          ),
        ),
    }),
    defineRoute({
      method: 'POST',
      path: '/corpora/:corpus_id/compare/stream',
      auth: 'bearer',
      scope: 'query',
      summary: 'Stream one strategy’s answer: head, delta..., then summary with metrics and cost per query',
      description: 'Exactly one terminal event: `summary` or `error`.',
      tags: ['economics'],
      params: CorpusParams,
      query: CompareStreamQuery,
      body: ChatReq,
      produces: 'text/event-stream',
      events: {
        head: ChatHeadEvent,
        delta: ChatDeltaEvent,
        summary: CompareSummaryEvent,
        error: StreamErrorEvent,
      },
      errors: SERVING_ERRORS,
      idempotent: false,
      handler: async ({ principal, params, query, body }) =>
        sseFrom(
          await economics.compareStream(
            principal,
            params.corpus_id,
            body,
            query.side ?? 'cart',
            query.queries_per_month ?? QPM,
          ),
          toCompareSse,
          { terminal: ['summary', 'error'], onError: errorEvent('The answer failed.'), keepAliveMs: 15_000 },
        ),
    }),
    defineRoute({
      method: 'GET',
      path: '/corpora/:corpus_id/economics',
      auth: 'bearer',
      scope: 'query',
      summary: 'What serving the base costs with each strategy, the onboarding cost and the break-even',
      tags: ['economics'],
      params: CorpusParams,
      query: EconomicsQuery,
      response: EconomicsResp,
      errors: ['corpus_not_ready', 'serving_unavailable'],
      handler: ({ principal, params, query }) =>
        economics.economics(principal, params.corpus_id, query.queries_per_month ?? QPM),
    }),
  ]
}
