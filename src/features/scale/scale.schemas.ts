import { Type } from '@sinclair/typebox'
import { namedObject } from '../../platform/http/schema'
import { TextString } from '../../platform/http/text-formats'

export const ScaleTestReq = namedObject('ScaleTestReq', {
  queries: Type.Optional(
    Type.Array(TextString({ minLength: 1, maxLength: 4000 }), {
      maxItems: 32,
      description: 'Questions to send; sampled from the base’s own text when absent or empty.',
    }),
  ),
  max_concurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 64, default: 24 })),
})

const Ms = Type.Union([Type.Number({ minimum: 0 }), Type.Null()])

export const LevelStats = namedObject('LevelStats', {
  qps: Type.Number({ minimum: 0, description: 'Answered queries per second.' }),
  ok: Type.Integer({ minimum: 0 }),
  reqs: Type.Integer({ minimum: 0 }),
  ttft: Ms,
  ttft_p95: Ms,
  lat: Ms,
  lat_p95: Ms,
  cpu_ms: Type.Optional(Ms),
})

export const LevelRecord = namedObject('LevelRecord', {
  level: Type.Integer({ minimum: 1, maximum: 64 }),
  cart: LevelStats,
  rag: LevelStats,
  partial: Type.Optional(Type.Boolean()),
})

export const ScaleRunSaveReq = namedObject('ScaleRunSaveReq', {
  queries: Type.Array(TextString({ minLength: 1, maxLength: 4000 }), { maxItems: 32 }),
  max_concurrency: Type.Integer({ minimum: 1, maximum: 64 }),
  records: Type.Array(LevelRecord, { minItems: 1, maxItems: 7 }),
  note: Type.Optional(TextString({ maxLength: 500 })),
})

export const ScaleRunResp = namedObject('ScaleRunResp', {
  id: Type.String(),
  corpus_id: Type.String(),
  queries: Type.Array(Type.String()),
  max_concurrency: Type.Integer(),
  levels: Type.Array(Type.Integer()),
  records: Type.Array(LevelRecord),
  note: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
})

/** `start`: the plan of the scale test. */
export const ScaleStartEvent = namedObject('ScaleStartEvent', {
  start: Type.Literal(true),
  queries: Type.Array(Type.String()),
  levels: Type.Array(Type.Integer({ minimum: 1 }), { description: 'Concurrency levels, highest first.' }),
  strategies: Type.Array(Type.String()),
  transport: Type.Optional(Type.String({ description: '`http` once the server listens.' })),
})

/** `done`: the scale test's terminal event. */
export const ScaleDoneEvent = namedObject('ScaleDoneEvent', {
  done: Type.Literal(true),
  stopped: Type.String({ description: '`complete`, `time_limit` or `aborted`.' }),
  levels_run: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
  elapsed_ms: Type.Optional(Type.Number({ minimum: 0 })),
})
