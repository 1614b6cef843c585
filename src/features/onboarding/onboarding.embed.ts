import type { Store } from '../../platform/db/store'
import type { Job, JobQueue } from '../../platform/jobs/queue'
import type { CorporaService } from '../corpora/corpora.service'
import { EMBED_ATTEMPTS, EMBED_KIND, type SectionOnboarder } from './onboarding.jobs'

/**
 * The embed jobs that give a base's passages their vectors for re-ranking by meaning: one after a
 * run, and at start-up one for every base onboarded before the configured model was plugged in.
 */
export class EmbedJobs {
  constructor(
    private readonly d: {
      store: Store
      queue: JobQueue
      corpora: CorporaService
      engine: Pick<SectionOnboarder, 'embeddingModel' | 'basesWithoutVectors'>
    },
  ) {}

  /**
   * Queues an embed job for a base unless one is already waiting (a running one may have passed the
   * newest sections), in one unit. Nothing when no model embeds passages.
   */
  async later(workspaceId: string, corpusId: string): Promise<Job | null> {
    const model = this.d.engine.embeddingModel
    if (model === null) return null
    return this.d.store.unit(async () => {
      const jobs = await this.d.queue.repo.listBySubject(workspaceId, corpusId, [EMBED_KIND])
      if (jobs.some((j) => j.status === 'pending')) return null
      return this.d.queue.add({
        workspaceId,
        subjectId: corpusId,
        kind: EMBED_KIND,
        maxAttempts: EMBED_ATTEMPTS,
        detail: `passages to embed with ${model}`,
      })
    })
  }

  /**
   * Queues an embed job for every base with passages that have no vector from the configured model:
   * bases onboarded before an embeddings server was plugged in, or under another model. Returns how
   * many jobs were queued.
   */
  async missing(): Promise<number> {
    let queued = 0
    for (const corpusId of this.d.engine.basesWithoutVectors()) {
      const ws = await this.d.corpora.workspaceOf(corpusId)
      if (ws && (await this.later(ws, corpusId))) queued++
    }
    return queued
  }
}
