import type { Clock } from '../../platform/clock/clock'
import type { JobContext } from '../../platform/jobs/handler'
import type { Job, JobQueue } from '../../platform/jobs/queue'
import type { CorporaService } from '../corpora/corpora.service'
import type { OnboardingJobs, SectionOnboarder } from './onboarding.jobs'
import type { OnboardingRepo } from './onboarding.repo'

/**
 * A base's deferred build: what a run leaves for after its text is indexed (the sections'
 * cartridges, the built-in vectors of their passages). The base answers by rag meanwhile.
 */
export const DEFERRED_KIND = 'train_deferred'
/** Tries of a deferred job (a crash mid-way resumes with the sections still waiting). */
const DEFERRED_ATTEMPTS = 5

/**
 * The deferred jobs: one queued after each run that leaves a base ready, and at start-up one for
 * every base with sections still waiting (a process stopped mid-way). Each builds a group of
 * sections a step (Engine.buildDeferred), reading the cancel flag between steps.
 */
export class DeferredJobs {
  constructor(
    private readonly d: {
      clock: Clock
      queue: JobQueue
      corpora: Pick<CorporaService, 'workspaceOf' | 'setCartStatus'>
      engine: Pick<SectionOnboarder, 'buildDeferred' | 'builds' | 'warmBase'>
      repo: OnboardingRepo
      jobs: Pick<OnboardingJobs, 'leafText'>
    },
  ) {}

  /**
   * After a run that left the base ready: marks its cart `building` and queues its deferred job when
   * sections wait for their cartridge (unless a job is already waiting: a running one may have passed
   * the newest sections); marks it `ready` when none do.
   */
  later(workspaceId: string, corpusId: string): Job | null {
    const now = this.d.clock.now().getTime()
    if (this.d.engine.builds.left(corpusId) === 0) {
      this.d.corpora.setCartStatus(workspaceId, corpusId, 'ready', now)
      return null
    }
    this.d.corpora.setCartStatus(workspaceId, corpusId, 'building', now)
    const waiting = this.d.queue
      .listBySubject(workspaceId, corpusId)
      .find((j) => j.kind === DEFERRED_KIND && j.status === 'pending')
    if (waiting) return null
    return this.d.queue.enqueue({
      workspaceId,
      subjectId: corpusId,
      kind: DEFERRED_KIND,
      maxAttempts: DEFERRED_ATTEMPTS,
      detail: 'cartridges and vectors to build',
    })
  }

  /** Queues a deferred job for every base with sections still waiting; returns how many were queued. */
  missing(): number {
    let queued = 0
    for (const corpusId of this.d.engine.builds.bases()) {
      const ws = this.d.corpora.workspaceOf(corpusId)
      if (ws && this.later(ws, corpusId)) queued++
    }
    return queued
  }

  /** Builds the base's waiting sections a group a step, until none is left. */
  async run(ctx: JobContext): Promise<{ built: number; failed: number }> {
    const corpusId = ctx.job.subjectId!
    const total = { built: 0, failed: 0 }
    for (;;) {
      ctx.checkpoint()
      // Each step reads its sections' documents once (sections of one document share its text).
      const texts = new Map<string, Promise<string | null>>()
      const textOf = async (sectionId: string): Promise<string | null> => {
        const unit = this.d.repo.unit(sectionId)
        return unit ? this.d.jobs.leafText(unit, texts).catch(() => null) : null
      }
      const step = await this.d.engine.buildDeferred(corpusId, textOf)
      total.built += step.built
      total.failed += step.failed
      const done = total.built + total.failed
      ctx.progress({ unitsDone: done, unitsTotal: done + step.left, detail: `${done} section(s) built` })
      if (step.left === 0) break
      // Sections whose text changed or left since they were indexed wait for the run that follows.
      if (step.built + step.failed === 0) return total
    }
    this.d.corpora.setCartStatus(ctx.job.workspaceId, corpusId, 'ready', this.d.clock.now().getTime())
    // Compiled on threads, the cartridges are not warm yet: loaded now, not on the first question.
    // A failure here is not the build's: the first question loads what is missing.
    await this.d.engine.warmBase(corpusId).catch(() => {})
    return total
  }
}
