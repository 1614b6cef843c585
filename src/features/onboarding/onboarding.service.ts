import { type Clock, iso } from '../../platform/clock/clock'
import type { Db } from '../../platform/db/db'
import { transaction } from '../../platform/db/transaction'
import { fail, notFound } from '../../platform/errors/errors'
import type { Outbox } from '../../platform/events/outbox'
import type { JobDefinition } from '../../platform/feature/feature'
import { isTerminal, type Job, type JobQueue } from '../../platform/jobs/queue'
import type { Logger } from '../../platform/log/log'
import type { ObjectStore } from '../../platform/storage/object-store'
import type { CorporaService } from '../corpora/corpora.service'
import { progressOf } from './onboarding.estimate'
import {
  BATCH_KIND,
  type BatchUnit,
  batchesOf,
  EMBED_ATTEMPTS,
  EMBED_KIND,
  KINDS,
  OnboardingJobs,
  RUN_KIND,
  type RunStats,
  type SectionOnboarder,
} from './onboarding.jobs'
import { OnboardingRepo } from './onboarding.repo'

export { RUN_KIND } from './onboarding.jobs'

export interface OnboardingDeps {
  db: Db
  clock: Clock
  log: Logger
  queue: JobQueue
  /** Runs that start and end are told as `onboarding.*` events, in the transaction that records them. */
  events: Outbox
  objects: ObjectStore
  corpora: CorporaService
  engine: SectionOnboarder
  /** Units per batch job. */
  batchSize?: number
}

/**
 * Onboarding runs: a `train` aggregate with `train_batch` children run by the job scheduler. Each
 * batch extracts (when needed) and onboards its units, reading the cancel flag between units. With
 * an embeddings server, an `embed` job follows each run: the base answers (lexically) as soon as the
 * run ends, and re-ranking by meaning starts once its passages have vectors.
 */
export class OnboardingService {
  private readonly repo: OnboardingRepo
  private readonly batchSize: number
  /** The jobs onboarding runs: its batches (settling the run when the last ends) and embedding. */
  readonly jobDefinitions: JobDefinition[]

  constructor(private readonly d: OnboardingDeps) {
    this.repo = new OnboardingRepo(d.db)
    this.batchSize = d.batchSize ?? 16
    const jobs = new OnboardingJobs({ ...d, repo: this.repo })
    this.jobDefinitions = [
      { kind: BATCH_KIND, run: (ctx) => jobs.runBatch(ctx), onSettled: (job) => this.settle(job) },
      { kind: EMBED_KIND, run: (ctx) => jobs.runEmbed(ctx) },
    ]
  }

  private now(): number {
    return this.d.clock.now().getTime()
  }

  /** The run of a base that has not ended, or null. */
  inFlight(workspaceId: string, corpusId: string): Job | null {
    return (
      this.d.queue
        .listBySubject(workspaceId, corpusId)
        .find((j) => j.kind === RUN_KIND && !isTerminal(j.status)) ?? null
    )
  }

  /** Starts a run over new or changed documents (all with `force`). */
  train(workspaceId: string, corpusId: string, force: boolean): Job {
    this.d.corpora.get(workspaceId, corpusId)
    if (this.inFlight(workspaceId, corpusId)) throw fail('training_in_progress')
    if (this.repo.documentCount(corpusId) === 0) throw fail('corpus_empty')
    const units = this.repo.units(corpusId, force)
    if (units.length === 0) throw fail('nothing_to_train')
    const now = this.now()
    // The run, its batches, the documents' and the base's status and the event land together.
    const run = transaction(this.d.db, () => this.startRun(workspaceId, corpusId, { units, force }, now))
    this.d.engine.warmUp()
    return run
  }

  /** Enqueues the run and its batches, marks its units and the base, and tells `onboarding.started`. */
  private startRun(
    workspaceId: string,
    corpusId: string,
    { units, force }: { units: BatchUnit[]; force: boolean },
    now: number,
  ): Job {
    const run = this.d.queue.enqueue({
      workspaceId,
      subjectId: corpusId,
      kind: RUN_KIND,
      status: 'running',
      unitsTotal: units.length,
      payload: { force },
      detail: `${units.length} section(s) to onboard`,
    })
    for (const batch of batchesOf(units, this.batchSize)) {
      this.d.queue.enqueue({
        workspaceId,
        subjectId: corpusId,
        parentId: run.id,
        kind: BATCH_KIND,
        unitsTotal: batch.length,
        // A batch waits (transient retries with backoff) for documents still being extracted.
        maxAttempts: 10,
        payload: { unit_ids: batch.map((u) => u.id) },
      })
    }
    this.repo.setStatus(
      units.map((u) => u.id),
      'onboarding',
      null,
      now,
    )
    this.repo.rollUpParents(
      units.flatMap((u) => (u.parent_id ? [u.parent_id] : [])),
      now,
    )
    this.d.corpora.setStatus(workspaceId, corpusId, 'training', now)
    this.d.events.emit(this.d.db, {
      type: 'onboarding.started',
      workspaceId,
      payload: { runId: run.id, corpusId },
    })
    return run
  }

  /** Asks the run in flight to stop; pending batches end at once, running ones at their next unit. */
  cancel(workspaceId: string, corpusId: string): Job {
    this.d.corpora.get(workspaceId, corpusId)
    const run = this.inFlight(workspaceId, corpusId)
    if (!run) throw fail('no_training_in_progress')
    this.d.queue.requestCancel(run.id)
    this.rollUp(run.id)
    return this.d.queue.get(run.id)!
  }

  /** A job of the workspace (another workspace's id is a 404). */
  job(workspaceId: string, id: string): Job {
    const job = this.d.queue.get(id)
    if (!job || job.workspaceId !== workspaceId || !KINDS.includes(job.kind)) {
      throw notFound('Job')
    }
    return job
  }

  /** Runs, batches and embed jobs of a base, newest first. */
  jobs(workspaceId: string, corpusId: string): Job[] {
    this.d.corpora.get(workspaceId, corpusId)
    return this.d.queue.listBySubject(workspaceId, corpusId).filter((j) => KINDS.includes(j.kind))
  }

  /**
   * Queues an embed job for a base unless one is already waiting (a running one may have passed the
   * newest sections). Nothing when no model embeds passages.
   */
  embedLater(workspaceId: string, corpusId: string): Job | null {
    if (this.d.engine.embeddingModel === null) return null
    const waiting = this.d.queue
      .listBySubject(workspaceId, corpusId)
      .find((j) => j.kind === EMBED_KIND && j.status === 'pending')
    if (waiting) return null
    return this.d.queue.enqueue({
      workspaceId,
      subjectId: corpusId,
      kind: EMBED_KIND,
      maxAttempts: EMBED_ATTEMPTS,
      detail: `passages to embed with ${this.d.engine.embeddingModel}`,
    })
  }

  /**
   * Queues an embed job for every base with passages that have no vector from the configured model:
   * bases onboarded before an embeddings server was plugged in, or under another model. `serve` calls
   * it at start-up; returns how many jobs were queued.
   */
  embedMissing(): number {
    let queued = 0
    for (const corpusId of this.d.engine.basesWithoutVectors()) {
      const ws = this.d.corpora.workspaceOf(corpusId)
      if (ws && this.embedLater(ws, corpusId)) queued++
    }
    return queued
  }

  /** The wire shape of a job, with its progress and estimate. */
  jobResp(job: Job) {
    const { progress, eta } = progressOf(this.d.queue, job, this.now())
    const ts = (ms: number | null) => (ms === null ? null : iso(new Date(ms)))
    return {
      id: job.id,
      corpus_id: job.subjectId ?? '',
      parent_id: job.parentId,
      kind: job.kind,
      status: job.status,
      progress: Math.round(progress * 1000) / 1000,
      eta_seconds: eta,
      detail: job.detail,
      error: job.error,
      created_at: iso(new Date(job.createdAt)),
      started_at: ts(job.startedAt),
      finished_at: ts(job.finishedAt),
    }
  }

  private settle(batch: Job): void {
    if (batch.parentId) this.rollUp(batch.parentId)
  }

  /** Ends a run once every batch has ended, and leaves the base and its documents consistent. */
  private rollUp(runId: string): void {
    const run = this.d.queue.get(runId)
    if (!run || isTerminal(run.status)) return
    // Counted first: every batch but the last to end stops here without reading its siblings.
    const sums = this.d.queue.childTotals(runId)
    if (sums.ended < sums.children) return
    const children = this.d.queue.children(runId)
    const corpusStatus = transaction(this.d.db, () => this.endRun(run, children))
    // Cartridges compiled on a thread are not warm yet: load them now, not on the first question.
    if (corpusStatus === 'ready') {
      this.d.engine.warmBase(run.subjectId!).catch((e) => {
        this.d.log.warn('warming a base failed', { corpus_id: run.subjectId, error: (e as Error).message })
      })
      // An in-process model embedded the passages as they were indexed.
      if (this.d.engine.embedsAfterOnboarding) this.embedLater(run.workspaceId, run.subjectId!)
    }
  }

  /** Records a run's end (its figures, the documents' and the base's status) and tells it; returns the base's status. */
  private endRun(run: Job, children: Job[]): 'ready' | 'failed' | 'new' {
    const now = this.now()
    const runId = run.id
    const canceled = run.cancelRequested || children.some((c) => c.status === 'canceled')
    const failed = children.filter((c) => c.status === 'failed')
    const stats = children.reduce(
      (a, c) => {
        const r = (c.result ?? {}) as Partial<RunStats>
        return {
          units: a.units + (r.units ?? 0),
          chars: a.chars + (r.chars ?? 0),
          cpuMs: a.cpuMs + (r.cpuMs ?? 0),
        }
      },
      { units: 0, chars: 0, cpuMs: 0 },
    )
    // Nothing may stay "onboarding" once no run is working on it.
    this.repo.resetOnboarding(run.subjectId!, now)
    const counts = this.repo.parentCounts(run.subjectId!)
    const corpusStatus =
      counts.ready > 0 ? 'ready' : counts.failed > 0 && counts.pending === 0 ? 'failed' : 'new'
    this.d.corpora.setStatus(run.workspaceId, run.subjectId!, corpusStatus, now)
    const status = canceled ? 'canceled' : failed.length > 0 ? 'failed' : 'succeeded'
    this.d.queue.updateAggregate(runId, {
      status,
      unitsDone: stats.units,
      detail: `${stats.units} section(s) onboarded, ${counts.failed} document(s) failed`,
      error: failed[0]?.error ?? null,
    })
    this.d.queue.setResult(runId, stats)
    const payload = { runId, corpusId: run.subjectId! }
    const { db, events } = this.d
    const workspaceId = run.workspaceId
    if (status === 'canceled') events.emit(db, { type: 'onboarding.cancelled', workspaceId, payload })
    else if (status === 'succeeded') events.emit(db, { type: 'onboarding.finished', workspaceId, payload })
    else
      events.emit(db, {
        type: 'onboarding.failed',
        workspaceId,
        payload: { ...payload, error: failed[0]?.error ?? '' },
      })
    return corpusStatus
  }
}
