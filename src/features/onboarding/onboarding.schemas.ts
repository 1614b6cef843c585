import { Type } from '@sinclair/typebox'
import { iso } from '../../platform/clock/clock'
import { namedObject } from '../../platform/http/schema'
import { isTerminal, type Job, type JobQueue } from '../../platform/jobs/queue'
import { AUTO_KIND } from './onboarding.auto'
import type { RunStats } from './onboarding.batches'
import { progressOf } from './onboarding.estimate'
import { BATCH_KIND, RUN_KIND } from './onboarding.jobs'

const Nullable = <T extends ReturnType<typeof Type.String>>(s: T) => Type.Union([s, Type.Null()])
const Timestamp = Type.String({ format: 'date-time' })

export const JobResp = namedObject('JobResp', {
  id: Type.String(),
  corpus_id: Type.String(),
  parent_id: Nullable(Type.String()),
  kind: Type.String({
    description:
      "`train` for a run, `train_batch` for one of its batches, `embed` for embedding the passages of a base after a run (only with an embeddings server), `train_auto` for the start of an automatic run waiting for new documents to stop arriving (`auto_onboard`), `train_deferred` for building the base's cartridges after a run (it answers by rag meanwhile; after a forced run it first checks the cartridges the base kept, and builds again any missing or damaged), `encode` for encoding the base's passages for the support check after a run (built-in encoder), `sources.sync` for a source's sync or an import listing its folder (its progress is files looked at against the folder's size at the last sync).",
  }),
  status: Type.String({ description: '`pending`, `running`, `succeeded`, `failed` or `canceled`.' }),
  progress: Type.Number({ minimum: 0, maximum: 1 }),
  eta_seconds: Type.Union([Type.Number(), Type.Null()], {
    description: 'Estimated seconds left, from the throughput measured so far; null until measurable.',
  }),
  detail: Nullable(Type.String()),
  error: Nullable(Type.String()),
  units_failed: Type.Integer({
    description:
      'For a run and its batches: sections (or one-section documents) that could not be onboarded, each `failed` with its reason. A run that ran to the end is `succeeded` even when some failed; this says how many. 0 for other kinds.',
  }),
  units_total: Type.Integer({
    description:
      'Units the job works on: for a run and its batches, the sections (or one-section documents, or documents still being extracted) it took, of which `units_failed` could not be onboarded; for an embed, encode or `train_deferred` job, its sections; for a sync, the files it has looked at or expects to. 0 for `train_auto`.',
  }),
  auto: Type.Boolean({
    description:
      'Started without anyone asking: a `train_auto` job, or the run it started for new documents of a base with `auto_onboard`.',
  }),
  created_at: Timestamp,
  started_at: Nullable(Timestamp),
  finished_at: Nullable(Timestamp),
})

export const TrainQuery = Type.Object({
  force: Type.Optional(
    Type.Boolean({ default: false, description: 'Re-onboard every document, not only new or changed ones.' }),
  ),
})

export const JobsQuery = Type.Object({
  kind: Type.Optional(
    Type.String({
      maxLength: 32,
      description:
        'Only jobs of this kind (`train`, `train_batch`, `embed`, `train_auto`, `train_deferred`, `encode`).',
    }),
  ),
})

export const CorpusParams = Type.Object({ corpus_id: Type.String({ maxLength: 64 }) })
export const JobParams = Type.Object({ job_id: Type.String({ maxLength: 64 }) })

/**
 * The wire shape of a job, with its progress and estimate (`now`: epoch ms) and its failures;
 * `corpusId` is its base (onboarding's jobs are about the base; a sync job is about its source).
 */
export async function jobResp(queue: JobQueue, job: Job, now: number, corpusId: string) {
  const { progress, eta, total } = await progressOf(queue, job, now)
  const ts = (ms: number | null) => (ms === null ? null : iso(new Date(ms)))
  return {
    id: job.id,
    corpus_id: corpusId,
    parent_id: job.parentId,
    kind: job.kind,
    status: job.status,
    progress: Math.round(progress * 1000) / 1000,
    eta_seconds: eta,
    detail: job.detail,
    error: job.error,
    units_failed: await unitsFailed(queue, job),
    units_total: total,
    auto: job.kind === AUTO_KIND || job.payload.auto === true,
    created_at: iso(new Date(job.createdAt)),
    started_at: ts(job.startedAt),
    finished_at: ts(job.finishedAt),
  }
}

/**
 * Units a run (or batch) could not onboard: a run `succeeded` when its batches ran to the end,
 * however many units failed on the way, so this is what says some did. A run in flight counts
 * its batches that have ended.
 */
async function unitsFailed(queue: JobQueue, job: Job): Promise<number> {
  const failedOf = (j: Job) => Number((j.result as Partial<RunStats> | null)?.failed ?? 0)
  if (job.kind === BATCH_KIND || (job.kind === RUN_KIND && isTerminal(job.status))) return failedOf(job)
  if (job.kind !== RUN_KIND) return 0
  // Summed in SQL over the batches' results: each batch's row also holds its units' ids and versions
  // (5,000 small files are 40 batches, half a megabyte of JSON), which a poll read and decoded.
  return (await queue.repo.childTotals(job.id, 'failed')).resultSum
}
