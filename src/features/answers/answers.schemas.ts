import { Type } from '@sinclair/typebox'
import type { ErrorCode } from '../../platform/errors/errors'
import { namedObject } from '../../platform/http/schema'
import type { SseEvent } from '../../platform/http/sse'
import { TextString } from '../../platform/http/text-formats'
import type { Source as SourceOf } from '../engine/engine.service'
import type { ChatEvent, ChatResult, StreamMetrics } from './answers.types'

export const Turn = namedObject('Turn', {
  role: Type.Union([Type.Literal('user'), Type.Literal('assistant')]),
  content: TextString({ maxLength: 8000 }),
})

export const ChatReq = namedObject('ChatReq', {
  question: TextString({ minLength: 1, maxLength: 4000 }),
  k: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 3, description: 'Sources to return.' })),
  distinct_documents: Type.Optional(
    Type.Boolean({
      description:
        'At most one source per document: the k best documents, each by its best passage (false when absent).',
    }),
  ),
  history: Type.Optional(
    Type.Array(Turn, { maxItems: 20, description: 'Earlier turns; condense a follow-up.' }),
  ),
  doc_ids: Type.Optional(
    Type.Array(Type.String({ maxLength: 64 }), {
      maxItems: 20,
      description: 'Pin the answer to these documents (ids from `used_docs` or the document listing).',
    }),
  ),
  max_tokens: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 8192, description: 'Answer length cap (model server).' }),
  ),
  strategy: Type.Optional(Type.Union([Type.Literal('cart'), Type.Literal('rag')], { default: 'cart' })),
})

const NullableInt = (description: string) => Type.Union([Type.Integer(), Type.Null()], { description })

export const Source = namedObject('Source', {
  id: Type.String({ description: 'The passage: `<section id>:<ordinal>`.' }),
  title: Type.String(),
  document_id: Type.String(),
  filename: Type.String(),
  snippet: Type.String({
    description:
      "The passage text the answer drew on, as the document's text holds it (a PDF's lines joined into paragraphs, its page numbers and running headers left out).",
  }),
  score: Type.Number(),
  page: NullableInt(
    'The page of a PDF the passage starts on (1-based); null for documents without pages and for passages onboarded before pages were kept.',
  ),
  section_title: Type.Union([Type.String(), Type.Null()], {
    description:
      'The title of the section the passage is in (its nearest heading); null for a document of one section.',
  }),
  start: NullableInt(
    "Where the passage starts in the document's text (`GET /v1/corpora/{id}/documents/{document_id}/text`), in UTF-16 code units; null when not known (a passage onboarded before offsets were kept: onboard the base again).",
  ),
  end: NullableInt("Where the passage ends in the document's text; `text.slice(start, end)` is the snippet."),
})

/** Present when a model server is configured but the answer is the extractive one: on the answer and in its metrics. */
const FallbackFlags = {
  fallback: Type.Optional(
    Type.Literal('extractive', {
      description:
        'Present when a model server is configured but the answer is the extractive one (the server was down or too slow, or spent its tokens before ending a sentence); see `fallback_reason`.',
    }),
  ),
  fallback_reason: Type.Optional(
    Type.String({ description: 'Why the answer fell back to the extractive one.' }),
  ),
}

export const Metrics = namedObject(
  'Metrics',
  {
    latency_ms: Type.Number(),
    ttft_ms: Type.Optional(Type.Number()),
    retrieval_ms: Type.Optional(Type.Number()),
    strategy: Type.String(),
    context_tokens: Type.Optional(Type.Integer()),
    generator: Type.Optional(Type.String({ description: '`extractive` or `llm`.' })),
    support: Type.Optional(
      Type.Number({
        description:
          'Probability (0..1) that the best passage answers the question; below the threshold the answer is `answered: false`.',
      }),
    ),
    ...FallbackFlags,
  },
  { additionalProperties: true },
)

/** Fields saying how far the answer can be trusted; shared by ChatResp and the stream's `head`. */
export const AnswerFlags = {
  short_answer: Type.Union([Type.String(), Type.Null()], {
    description:
      'The exact span answering a fact question (who, when, where, how many, which): a name, a date, a number, picked from the cited sentence. The extractive `answer` leads with it when it reads as an answer on its own (not a fragment of its sentence), then the supporting sentence and its citation. Null when the answer was declined, when the question does not ask for a fact (why, how), or when a model server wrote the answer.',
  }),
  answered: Type.Boolean({
    description:
      'False when the documents of the base do not answer the question (no passage supports an answer, or the model server found no answer in the passages it was given): `answer` then says so and cites nothing, and `sources` are only the closest passages found, not evidence.',
  }),
  ...FallbackFlags,
}

export const ChatResp = namedObject('ChatResp', {
  answer: Type.String(),
  ...AnswerFlags,
  strategy: Type.String(),
  used_docs: Type.Array(Type.String()),
  sources: Type.Array(Source),
  condensed_q: Type.String(),
  metrics: Metrics,
})

export const DescribeResp = namedObject('DescribeResp', {
  id: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
})

export const FeedbackReq = namedObject('FeedbackReq', {
  rating: Type.Union([Type.Literal('up'), Type.Literal('down')]),
  question: Type.Optional(TextString({ maxLength: 4000 })),
  answer: Type.Optional(TextString({ maxLength: 20000 })),
  comment: Type.Optional(TextString({ maxLength: 4000 })),
  source_ids: Type.Optional(Type.Array(Type.String({ maxLength: 128 }), { maxItems: 20 })),
  strategy: Type.Optional(Type.Union([Type.Literal('cart'), Type.Literal('rag')])),
})

export const FeedbackResp = namedObject('FeedbackResp', {
  id: Type.String(),
  status: Type.Literal('recorded'),
})

export const CorpusParams = Type.Object({ corpus_id: Type.String({ maxLength: 64 }) })

/** `head`: the sources, before any text. */
export const ChatHeadEvent = namedObject('ChatHeadEvent', {
  head: Type.Literal(true),
  ...AnswerFlags,
  used_docs: Type.Array(Type.String()),
  sources: Type.Array(Source),
  condensed_q: Type.String(),
})

/** `delta`: the next piece of the answer's text. */
export const ChatDeltaEvent = namedObject('ChatDeltaEvent', { delta: Type.String() })

/** `done`: the stream ended well; the measured metrics. */
export const ChatDoneEvent = namedObject('ChatDoneEvent', { done: Type.Literal(true), metrics: Metrics })

/** `error`: the stream failed after it started (it is then the only terminal event). */
export const StreamErrorEvent = namedObject('StreamErrorEvent', { error: Type.String() })

/** What asking a base can refuse beyond bad input and credentials (chat, stream, compare, MCP). */
export const SERVING_ERRORS: ErrorCode[] = [
  'unknown_documents',
  'corpus_not_ready',
  'serving_unavailable',
  'plan_limit_reached',
]

/** The wire shape of a source. */
export function toSourceResp(s: SourceOf) {
  return {
    id: s.id,
    title: s.title,
    document_id: s.documentId,
    filename: s.filename,
    snippet: s.snippet,
    score: s.score,
    page: s.page ?? null,
    section_title: s.sectionTitle ?? null,
    start: s.start ?? null,
    end: s.end ?? null,
  }
}

/** The wire fields of a fallback: present only when the answer fell back to the extractive one. */
function fallbackResp(reason: string | undefined) {
  return reason === undefined ? {} : { fallback: 'extractive' as const, fallback_reason: reason }
}

/** ChatResp: an answer, its sources and its figures, on the wire. */
export function toChatResp(r: ChatResult) {
  const m = r.metrics
  return {
    answer: r.answer,
    short_answer: r.shortAnswer,
    answered: r.answered,
    strategy: r.strategy,
    used_docs: r.usedDocs,
    sources: r.sources.map(toSourceResp),
    condensed_q: r.condensedQuestion,
    metrics: {
      latency_ms: m.latencyMs,
      retrieval_ms: m.retrievalMs,
      strategy: m.strategy,
      k: m.k,
      support: m.support,
      ttft_ms: m.ttftMs,
      context_tokens: m.contextTokens,
      generator: m.generator,
    },
    ...fallbackResp(r.fallbackReason),
  }
}

/** The `done` event's metrics on the wire. */
export function toStreamMetricsResp(m: StreamMetrics) {
  return {
    latency_ms: m.latencyMs,
    ttft_ms: m.ttftMs,
    retrieval_ms: m.retrievalMs,
    strategy: m.strategy,
    context_tokens: m.contextTokens,
    generator: m.generator,
    ...fallbackResp(m.fallbackReason),
  }
}

/** A streamed answer's event on the wire: `head`, `delta` or `done`. */
export function toChatSse(e: ChatEvent): SseEvent {
  if (e.type === 'delta') return { event: 'delta', data: { delta: e.text } }
  if (e.type === 'done')
    return { event: 'done', data: { done: true, metrics: toStreamMetricsResp(e.metrics) } }
  return {
    event: 'head',
    data: {
      head: true,
      short_answer: e.shortAnswer,
      answered: e.answered,
      ...fallbackResp(e.fallbackReason),
      used_docs: e.usedDocs,
      sources: e.sources.map(toSourceResp),
      condensed_q: e.condensedQuestion,
    },
  }
}
