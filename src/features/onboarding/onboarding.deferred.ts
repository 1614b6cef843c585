import type { Clock } from '../../platform/clock/clock'
import { lookUpTogether } from '../../platform/concurrency/together'
import { yieldToLoop } from '../../platform/concurrency/yield'
import type { Store } from '../../platform/db/store'
import {
  JobCanceledError,
  type JobContext,
  JobOverBudgetError,
  TransientError,
} from '../../platform/jobs/handler'
import { isTerminal, type Job, type JobQueue } from '../../platform/jobs/queue'
import type { Logger } from '../../platform/log/log'
import type { CorporaService } from '../corpora/corpora.service'
import { type OnboardingJobs, RUN_KIND, type SectionOnboarder } from './onboarding.jobs'

/**
 * A base's deferred build: what a run leaves for after its text is indexed (the sections'
 * cartridges, the built-in vectors of their passages). The base answers by rag meanwhile.
 */
export const DEFERRED_KIND = 'train_deferred'
/** Tries of a deferred job (a crash mid-way resumes with the sections still waiting). */
const DEFERRED_ATTEMPTS = 5
/** Sections left out of cart a job's result names (its detail counts them all). */
const DROPPED_NAMED = 20

/** How onboarding says a section's text is gone for good (OnboardingJobs.leafText): not worth trying again. */
const LOST = ['The document has no extracted text', 'The extracted text is missing']

/** Rethrows a failure of the store or database as one the job tries again later (a cancel as it is). */
function transient(e: Error): never {
  const control =
    e instanceof TransientError || e instanceof JobCanceledError || e instanceof JobOverBudgetError
  throw control ? e : new TransientError(e.message)
}

/** A section the deferred build could not make a cartridge for: left to rag, and why. */
interface Dropped {
  section_id: string
  document_id: string
  filename: string
  reason: string
}

/**
 * The deferred jobs: one queued after each run that leaves a base ready, and at start-up one for
 * every base with sections still waiting (a process stopped mid-way). Each builds a group of
 * sections a step (Engine.buildDeferred), reading the cancel flag between steps.
 */
export class DeferredJobs {
  /** Bases whose job is checking their cartridges now (the damage it finds is its own to build). */
  private readonly checking = new Set<string>()

  constructor(
    private readonly d: {
      clock: Clock
      store: Store
      queue: JobQueue
      log?: Logger
      corpora: Pick<CorporaService, 'workspaceOf' | 'setCartStatus' | 'runs'>
      engine: Pick<SectionOnboarder, 'buildDeferred' | 'builds' | 'warmBase' | 'syncBase'>
      jobs: Pick<OnboardingJobs, 'leafText'>
    },
  ) {
    // A question that met a missing or damaged cartridge: the base builds it again (cart_status building).
    d.engine.builds.whenDamaged((corpusId) => {
      if (this.checking.has(corpusId)) return
      const queued = async () => {
        const ws = await d.corpora.workspaceOf(corpusId)
        if (ws) await this.later(ws, corpusId)
      }
      // Awaited by the question that found it, so its answer is given once the build is queued.
      return queued().catch((e: Error) =>
        d.log?.warn('queueing a cartridge build failed', { corpus_id: corpusId, error: e.message }),
      )
    })
  }

  /**
   * After a run that left the base ready: marks its cart `building` and queues its deferred job when
   * sections wait for their cartridge (unless a job is already waiting: a running one may have passed
   * the newest sections); marks it `ready` when none do. After a forced run has ended, a job first
   * checks the cartridges the base kept (once a run): `ready` stays unless it finds one damaged. A
   * job is queued too when the run held its index's merges (engine.merges.repo.ts), to do them.
   * The status and the job are written in one unit.
   */
  later(workspaceId: string, corpusId: string): Promise<Job | null> {
    return this.d.store.unit(() => this.laterNow(workspaceId, corpusId))
  }

  private async laterNow(workspaceId: string, corpusId: string): Promise<Job | null> {
    // A base deleted meanwhile (its run's last batch ending after the delete) leaves no job behind.
    if ((await this.d.corpora.workspaceOf(corpusId)) === null) return null
    const now = this.d.clock.now().getTime()
    const jobs = await this.d.queue.repo.listBySubject(workspaceId, corpusId, [RUN_KIND, DEFERRED_KIND])
    // Checked once the run has ended: not competing with its batches, so the base answers as soon.
    const run = jobs.find((j) => j.kind === RUN_KIND)
    const check = run?.payload.force === true && isTerminal(run.status) ? run.id : null
    const deferred = jobs.filter((j) => j.kind === DEFERRED_KIND)
    const checked = check === null || deferred.some((j) => j.payload.check === check)
    if (this.d.engine.builds.left(corpusId) === 0) {
      await this.d.corpora.setCartStatus(workspaceId, corpusId, 'ready', now)
      if (checked && !this.d.engine.builds.mergesHeld(corpusId)) return null
    } else await this.d.corpora.setCartStatus(workspaceId, corpusId, 'building', now)
    if (checked && deferred.some((j) => j.status === 'pending')) return null
    return this.d.queue.add({
      workspaceId,
      subjectId: corpusId,
      kind: DEFERRED_KIND,
      maxAttempts: DEFERRED_ATTEMPTS,
      payload: checked ? {} : { check },
      detail: checked ? 'cartridges and vectors to build' : 'cartridges to check, and to build',
    })
  }

  /** Queues a deferred job for every base with sections still waiting; returns how many were queued. */
  async missing(): Promise<number> {
    let queued = 0
    for (const corpusId of this.d.engine.builds.bases()) {
      const ws = await this.d.corpora.workspaceOf(corpusId)
      if (ws && (await this.later(ws, corpusId))) queued++
    }
    return queued
  }

  /**
   * Checks the base's cartridges when a forced run asked for it, then builds its waiting sections a
   * group a step until none is left. A step that can build none of its sections (their text lost, or
   * changed since they were indexed) leaves them out of cart, named in the job's result, so the build
   * always ends.
   */
  async run(
    ctx: JobContext,
  ): Promise<{ built: number; failed: number; damaged: number; dropped: Dropped[] }> {
    const corpusId = ctx.job.subjectId!
    const ws = ctx.job.workspaceId
    const total = { built: 0, failed: 0, damaged: 0, dropped: [] as Dropped[] }
    await this.d.engine.syncBase(corpusId)
    if (ctx.job.payload.check) total.damaged = await this.check(ctx, corpusId).catch(transient)
    // The merges of the base's index its run held, before its builds: a step at a time, questions in between.
    if (this.d.engine.builds.mergesHeld(corpusId))
      while (await this.d.engine.builds.mergeStep(corpusId)) {
        ctx.checkpoint()
        await yieldToLoop()
      }
    let dropped = 0
    let stalled = 0
    for (;;) {
      ctx.checkpoint()
      // Each step reads its sections' documents once (sections of one document share its text).
      const texts = new Map<string, Promise<string | null>>()
      const unreadable = new Map<string, string>()
      let failure: Error | null = null
      // A step asks for all its sections' texts at once: their rows are read in one query.
      const unitOf = lookUpTogether((ids: string[]) => this.d.corpora.runs.unitsById(ids))
      const textOf = async (sectionId: string): Promise<string | null> => {
        const unit = await unitOf(sectionId)
        if (!unit) unreadable.set(sectionId, 'its document is gone')
        if (!unit) return null
        return this.d.jobs.leafText(unit, texts).catch((e: Error) => {
          // The text lost (or never extracted) is for good; a store that failed to answer is tried again.
          if (LOST.some((m) => e.message.startsWith(m))) unreadable.set(sectionId, e.message)
          else failure = e
          return null
        })
      }
      const step = await this.d.engine.buildDeferred(corpusId, textOf).catch(transient)
      total.built += step.built
      total.failed += step.failed
      if (step.left > 0 && step.built + step.failed === 0) {
        if (failure) transient(failure)
        // A step that builds nothing thrice, giving up on nothing, is a fault: the job fails (listed).
        let gaveUp = 0
        // Read again: a section indexed anew since the step read it is built by the next step.
        for (const s of this.d.engine.builds.waiting(corpusId)) {
          if (!this.d.engine.builds.giveUp(s, await textOf(s.section_id))) continue
          gaveUp++
          dropped++
          const { section_id, document_id, filename } = s
          const reason =
            unreadable.get(section_id) ?? 'its document changed since it was indexed; the next run builds it'
          if (total.dropped.length < DROPPED_NAMED)
            total.dropped.push({ section_id, document_id, filename, reason })
        }
        if (gaveUp === 0 && ++stalled >= 3) throw new Error('the deferred build makes no progress')
      }
      const done = total.built + total.failed + dropped
      const left = this.d.engine.builds.left(corpusId)
      const out = dropped > 0 ? `, ${dropped} left out of cart (text unreadable)` : ''
      await ctx.progress({
        unitsDone: done,
        unitsTotal: done + left,
        detail: `${done} section(s) built${out}`,
      })
      if (left === 0) break
    }
    // Compiled on threads, the cartridges are not warm yet: loaded now, before the base says it is ready
    // for cart, so a client that waits for that finds cart at speed (the loads took about a second at
    // 16x, which the first cart question waited for). A failure here is not the build's: the first
    // question loads what is missing.
    await this.d.engine.warmBase(corpusId).catch(() => {})
    await this.d.corpora.setCartStatus(ws, corpusId, 'ready', this.d.clock.now().getTime())
    return total
  }

  /** Checks the base's cartridges in the store; those damaged wait to be built again (the base `building`). */
  private async check(ctx: JobContext, corpusId: string): Promise<number> {
    this.checking.add(corpusId)
    try {
      const { damaged } = await this.d.engine.builds.verify(corpusId, (done, total) => {
        ctx.checkpoint()
        ctx.progress({ unitsDone: 0, unitsTotal: total, detail: `${done}/${total} cartridges checked` })
      })
      if (damaged > 0)
        await this.d.corpora.setCartStatus(
          ctx.job.workspaceId,
          corpusId,
          'building',
          this.d.clock.now().getTime(),
        )
      return damaged
    } finally {
      this.checking.delete(corpusId)
    }
  }
}
