import { Type } from '@sinclair/typebox'
import { TextString } from '../../platform/http/text-formats'

export const Turn = Type.Object({
  role: Type.Union([Type.Literal('user'), Type.Literal('assistant')]),
  content: TextString({ maxLength: 8000 }),
})

export const ChatReq = Type.Object({
  question: TextString({ minLength: 1, maxLength: 4000 }),
  k: Type.Optional(Type.Integer({ minimum: 1, maximum: 20, default: 3, description: 'Sources to return.' })),
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

export const Source = Type.Object({
  id: Type.String(),
  title: Type.String(),
  document_id: Type.String(),
  filename: Type.String(),
  snippet: Type.String({ description: 'The passage text the answer drew on.' }),
  score: Type.Number(),
})

export const Metrics = Type.Object(
  {
    latency_ms: Type.Number(),
    ttft_ms: Type.Optional(Type.Number()),
    retrieval_ms: Type.Optional(Type.Number()),
    strategy: Type.String(),
    context_tokens: Type.Optional(Type.Integer()),
    generator: Type.Optional(Type.String({ description: '`extractive` or `llm`.' })),
  },
  { additionalProperties: true },
)

export const ChatResp = Type.Object({
  answer: Type.String(),
  strategy: Type.String(),
  used_docs: Type.Array(Type.String()),
  sources: Type.Array(Source),
  condensed_q: Type.String(),
  metrics: Metrics,
})

export const DescribeResp = Type.Object({
  id: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
})

export const FeedbackReq = Type.Object({
  rating: Type.Union([Type.Literal('up'), Type.Literal('down')]),
  question: Type.Optional(TextString({ maxLength: 4000 })),
  answer: Type.Optional(TextString({ maxLength: 20000 })),
  comment: Type.Optional(TextString({ maxLength: 4000 })),
  source_ids: Type.Optional(Type.Array(Type.String({ maxLength: 128 }), { maxItems: 20 })),
  strategy: Type.Optional(Type.Union([Type.Literal('cart'), Type.Literal('rag')])),
})

export const FeedbackResp = Type.Object({ id: Type.String(), status: Type.Literal('recorded') })

export const CorpusParams = Type.Object({ corpus_id: Type.String({ maxLength: 64 }) })
