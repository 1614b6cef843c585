import { reachesBase } from '../../platform/auth/principal'
import { notFound } from '../../platform/errors/errors'
import { defineRoute, type RouteDef } from '../../platform/http/route'
import { encodeCursor } from '../../platform/paging/paging'
import { CorpusParams, JobParams, JobResp, JobsQuery, TrainQuery } from './onboarding.schemas'
import type { OnboardingService } from './onboarding.service'

/** Routes of the spec's "Onboarding and jobs" section (describe lives with answers). */
export function onboardingRoutes(onboarding: OnboardingService): RouteDef[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/corpora/:corpus_id/train',
      auth: 'bearer',
      scope: 'ingest',
      summary: 'Start onboarding: new or changed documents, or all with force=true',
      description:
        'Creates a run (kind `train`) with batch children (kind `train_batch`). 409 when the base has no documents, nothing new, or a run in flight.',
      tags: ['onboarding'],
      params: CorpusParams,
      query: TrainQuery,
      response: JobResp,
      handler: async ({ principal, params, query }) =>
        onboarding.jobResp(
          await onboarding.train(principal.workspaceId, params.corpus_id, query.force ?? false),
        ),
    }),
    defineRoute({
      method: 'POST',
      path: '/corpora/:corpus_id/cancel',
      auth: 'bearer',
      scope: 'ingest',
      summary: 'Cancel the onboarding run in flight (cooperative)',
      description:
        'An automatic run waiting to start (`train_auto`) is canceled too; when it is all there was, it is the answer.',
      tags: ['onboarding'],
      params: CorpusParams,
      response: JobResp,
      handler: async ({ principal, params }) =>
        onboarding.jobResp(await onboarding.cancel(principal.workspaceId, params.corpus_id)),
    }),
    defineRoute({
      method: 'GET',
      path: '/jobs/:job_id',
      auth: 'bearer',
      // A key bound to some bases finds the jobs of those only.
      boundKeys: 'served',
      summary: 'A job with its progress and estimate',
      description:
        "An onboarding job (`train`, `train_batch`, `embed`, `train_auto`, `train_deferred`), a base's encoding (`encode`) or a source's sync or import (`sources.sync`: the `job_id` of its sync run). Another workspace's job is a 404.",
      tags: ['onboarding'],
      params: JobParams,
      response: JobResp,
      handler: async ({ principal, params }) => {
        const { job, corpusId } = await onboarding.job(principal.workspaceId, params.job_id)
        // A key bound to some bases finds another base's job missing, as its base is.
        if (!reachesBase(principal, corpusId)) throw notFound('Job')
        return onboarding.jobResp(job, corpusId)
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/corpora/:corpus_id/jobs',
      auth: 'bearer',
      summary: 'Onboarding runs of a base, their batches and its background jobs, newest first',
      description:
        'Runs (`train`), their batches, automatic starts (`train_auto`), and the work that follows a run: `train_deferred` (cartridges), `embed` (an embeddings server) and `encode` (the built-in encoder), each with its progress.',
      tags: ['onboarding'],
      params: CorpusParams,
      query: JobsQuery,
      list: true,
      response: JobResp,
      handler: async ({ principal, params, query, page }) => {
        const jobs = await onboarding.jobs(principal.workspaceId, params.corpus_id, query.kind)
        const all = await Promise.all(jobs.map((j) => onboarding.jobResp(j)))
        if (!page) return { items: all, total: all.length, nextCursor: null }
        // Jobs of one base are few; continue after the last id seen, so new runs never shift a page.
        const start = page.after ? all.findIndex((j) => j.id === page.after?.[0]) + 1 : 0
        const items = all.slice(start, start + page.limit)
        const last = items.at(-1)
        const more = start + page.limit < all.length && last !== undefined
        return { items, total: all.length, nextCursor: more ? encodeCursor([last.id]) : null }
      },
    }),
  ]
}
