import { Type } from '@sinclair/typebox'
import { TextString } from '../../platform/http/text-formats'

export const ScaleTestReq = Type.Object({
  queries: Type.Optional(
    Type.Array(TextString({ minLength: 1, maxLength: 4000 }), {
      maxItems: 32,
      description: 'Questions to send; sampled from the base’s own text when absent or empty.',
    }),
  ),
  max_concurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 64, default: 24 })),
})

const Ms = Type.Union([Type.Number({ minimum: 0 }), Type.Null()])

export const LevelStats = Type.Object({
  qps: Type.Number({ minimum: 0, description: 'Answered queries per second.' }),
  ok: Type.Integer({ minimum: 0 }),
  reqs: Type.Integer({ minimum: 0 }),
  ttft: Ms,
  ttft_p95: Ms,
  lat: Ms,
  lat_p95: Ms,
  cpu_ms: Type.Optional(Ms),
})

export const LevelRecord = Type.Object({
  level: Type.Integer({ minimum: 1, maximum: 64 }),
  cart: LevelStats,
  rag: LevelStats,
  partial: Type.Optional(Type.Boolean()),
})

export const ScaleRunSaveReq = Type.Object({
  queries: Type.Array(TextString({ minLength: 1, maxLength: 4000 }), { maxItems: 32 }),
  max_concurrency: Type.Integer({ minimum: 1, maximum: 64 }),
  records: Type.Array(LevelRecord, { minItems: 1, maxItems: 7 }),
  note: Type.Optional(TextString({ maxLength: 500 })),
})

export const ScaleRunResp = Type.Object({
  id: Type.String(),
  corpus_id: Type.String(),
  queries: Type.Array(Type.String()),
  max_concurrency: Type.Integer(),
  levels: Type.Array(Type.Integer()),
  records: Type.Array(LevelRecord),
  note: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
})
