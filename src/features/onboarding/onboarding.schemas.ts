import { Type } from '@sinclair/typebox'
import { namedObject } from '../../platform/http/schema'

const Nullable = <T extends ReturnType<typeof Type.String>>(s: T) => Type.Union([s, Type.Null()])
const Timestamp = Type.String({ format: 'date-time' })

export const JobResp = namedObject('JobResp', {
  id: Type.String(),
  corpus_id: Type.String(),
  parent_id: Nullable(Type.String()),
  kind: Type.String({
    description:
      '`train` for a run, `train_batch` for one of its batches, `embed` for embedding the passages of a base after a run (only with an embeddings server).',
  }),
  status: Type.String({ description: '`pending`, `running`, `succeeded`, `failed` or `canceled`.' }),
  progress: Type.Number({ minimum: 0, maximum: 1 }),
  eta_seconds: Type.Union([Type.Number(), Type.Null()], {
    description: 'Estimated seconds left, from the throughput measured so far; null until measurable.',
  }),
  detail: Nullable(Type.String()),
  error: Nullable(Type.String()),
  created_at: Timestamp,
  started_at: Nullable(Timestamp),
  finished_at: Nullable(Timestamp),
})

export const TrainQuery = Type.Object({
  force: Type.Optional(
    Type.Boolean({ default: false, description: 'Re-onboard every document, not only new or changed ones.' }),
  ),
})

export const CorpusParams = Type.Object({ corpus_id: Type.String({ maxLength: 64 }) })
export const JobParams = Type.Object({ job_id: Type.String({ maxLength: 64 }) })
