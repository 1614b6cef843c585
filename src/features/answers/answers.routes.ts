import { defineRoute, type RouteDef } from '../../platform/http/route'
import { errorEvent, sseFrom } from '../../platform/http/sse'
import {
  ChatDeltaEvent,
  ChatDoneEvent,
  ChatHeadEvent,
  ChatReq,
  ChatResp,
  CorpusParams,
  DescribeResp,
  FeedbackReq,
  FeedbackResp,
  SERVING_ERRORS,
  StreamErrorEvent,
  toChatResp,
  toChatSse,
} from './answers.schemas'
import { type AnswersService, ORIGIN_HEADER, originOf } from './answers.service'

const UNAVAILABLE =
  'Answers 503 `serving_unavailable` with `Retry-After` when the engine is saturated, or when the model server is down or slow and `llm.strict` is on (otherwise the answer falls back to the extractive one, marked `fallback: "extractive"`). `answered: false` means the documents do not answer the question. With `X-Engram-Origin: scale_test` (or `compare`) the question is counted in `/admin/usage` as measuring load, apart from the questions people ask. Each question takes one of the plan\'s `queries_per_month` (the calendar month, UTC) before any work: past it, 403 `plan_limit_reached` with `{cap, limit, used}` and nothing is written; a question that fails before it is answered (503, an engine error) gives it back. The origin header does not exempt a question from the cap.'

/** Chat, streamed chat, describe and feedback (spec: Answers, Onboarding). */
export function answersRoutes(answers: AnswersService): RouteDef[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/corpora/:corpus_id/chat',
      auth: 'bearer',
      scope: 'query',
      summary: 'Answer a question from a ready base, with the sources used',
      description: UNAVAILABLE,
      tags: ['answers'],
      params: CorpusParams,
      body: ChatReq,
      response: ChatResp,
      errors: SERVING_ERRORS,
      handler: async ({ principal, params, body, request }) =>
        toChatResp(
          await answers.chat(
            principal,
            params.corpus_id,
            body,
            originOf(request.headers.get(ORIGIN_HEADER)),
            answers.allowance.countedOf(request.headers),
          ),
        ),
    }),
    defineRoute({
      method: 'POST',
      path: '/corpora/:corpus_id/chat/stream',
      auth: 'bearer',
      scope: 'query',
      summary: 'Stream an answer as server-sent events: head, delta..., done (or one error)',
      description: UNAVAILABLE,
      tags: ['answers'],
      params: CorpusParams,
      body: ChatReq,
      produces: 'text/event-stream',
      events: { head: ChatHeadEvent, delta: ChatDeltaEvent, done: ChatDoneEvent, error: StreamErrorEvent },
      errors: SERVING_ERRORS,
      idempotent: false,
      handler: async ({ principal, params, body, request }) =>
        sseFrom(
          await answers.chatStream(
            principal,
            params.corpus_id,
            body,
            originOf(request.headers.get(ORIGIN_HEADER)),
            answers.allowance.countedOf(request.headers),
          ),
          toChatSse,
          {
            terminal: ['done', 'error'],
            onError: errorEvent('The answer failed.'),
            keepAliveMs: 15_000,
          },
        ),
    }),
    defineRoute({
      method: 'POST',
      path: '/corpora/:corpus_id/describe',
      auth: 'bearer',
      scope: 'ingest',
      summary: 'Generate the catalog description of a ready base (null when none was produced)',
      tags: ['answers'],
      params: CorpusParams,
      response: DescribeResp,
      errors: ['corpus_not_ready', 'serving_unavailable'],
      handler: ({ principal, params }) => answers.describe(principal, params.corpus_id),
    }),
    defineRoute({
      method: 'POST',
      path: '/corpora/:corpus_id/feedback',
      mount: 'unversioned',
      auth: 'bearer',
      scope: 'query',
      summary: 'Rate an answer',
      tags: ['answers'],
      params: CorpusParams,
      body: FeedbackReq,
      response: FeedbackResp,
      handler: ({ principal, params, body }) => answers.feedback(principal, params.corpus_id, body),
    }),
  ]
}
