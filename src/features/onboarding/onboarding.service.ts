import type { Clock } from '../../platform/clock/clock'
import type { Store } from '../../platform/db/store'
import { fail, notFound } from '../../platform/errors/errors'
import type { Subscriber } from '../../platform/events/dispatcher'
import type { Outbox } from '../../platform/events/outbox'
import type { JobDefinition } from '../../platform/feature/feature'
import { isTerminal, type Job, type JobQueue, type ReadableJobs } from '../../platform/jobs/queue'
import type { Logger } from '../../platform/log/log'
import type { ObjectStore } from '../../platform/storage/object-store'
import type { CorporaService, Unit } from '../corpora/corpora.service'
import type { IngestService } from '../ingest/ingest.service'
import { AUTO_KIND, AutoOnboarding, type AutoTiming } from './onboarding.auto'
import { runStats } from './onboarding.batches'
import { DEFERRED_KIND, DeferredJobs } from './onboarding.deferred'
import { EmbedJobs } from './onboarding.embed'
import {
  BATCH_KIND,
  BATCH_UNITS,
  batchesOf,
  EMBED_KIND,
  OnboardingJobs,
  RUN_KIND,
  type SectionOnboarder,
} from './onboarding.jobs'
import { jobResp } from './onboarding.schemas'

export { AUTO_KIND } from './onboarding.auto'
export { RUN_KIND } from './onboarding.jobs'

/** Every job kind onboarding runs (other kinds' ids are a 404 here, unless made readable). */
const KINDS: readonly string[] = [RUN_KIND, BATCH_KIND, EMBED_KIND, AUTO_KIND, DEFERRED_KIND]

export interface OnboardingDeps {
  store: Store
  clock: Clock
  log: Logger
  queue: JobQueue
  /** Runs that start and end are told as `onboarding.*` events, in the unit that records them. */
  events: Outbox
  objects: ObjectStore
  corpora: CorporaService
  ingest?: Pick<IngestService, 'reextract'>
  engine: SectionOnboarder
  /** Units per batch job. */
  batchSize?: number
  /** When automatic runs start after documents arrive (config `[onboarding]`). */
  autoTiming: AutoTiming
  /** Other features' jobs `GET /jobs/{job_id}` answers for too (sources' syncs). */
  readable?: readonly ReadableJobs[]
}

/**
 * Onboarding runs: a `train` aggregate with `train_batch` children run by the job scheduler. Each
 * batch indexes its units' text, reading the cancel flag between groups: the base answers by rag as
 * soon as the run ends. A `train_deferred` job follows with the cartridges and built-in vectors (cart
 * answers once they are all there), and with an embeddings server an `embed` job with its vectors.
 */
export class OnboardingService {
  private readonly batchSize: number
  /** Runs nobody asked for: new documents of bases with `auto_onboard` (onboarding.auto.ts). */
  private readonly auto: AutoOnboarding
  private readonly embeds: EmbedJobs
  private readonly deferred: DeferredJobs
  /** Its jobs: batches (the last settles the run), deferred builds, embedding, automatic runs' start. */
  readonly jobDefinitions: JobDefinition[]
  /** Extracted uploads, pushes and syncs (`sync.finished`) schedule automatic runs. */
  readonly subscribers: Subscriber[]

  constructor(private readonly d: OnboardingDeps) {
    this.batchSize = d.batchSize ?? BATCH_UNITS
    const jobs = new OnboardingJobs({ ...d, runs: d.corpora.runs })
    this.embeds = new EmbedJobs(d)
    this.deferred = new DeferredJobs({ ...d, jobs })
    this.auto = new AutoOnboarding({
      ...d,
      timing: d.autoTiming,
      inFlight: (ws, corpusId) => this.inFlight(ws, corpusId),
      begin: (ws, corpusId, units) => this.begin(ws, corpusId, units, { force: false, auto: true }),
    })
    this.jobDefinitions = [
      { kind: BATCH_KIND, run: (ctx) => jobs.runBatch(ctx), onSettled: (job) => this.settle(job) },
      { kind: DEFERRED_KIND, run: (ctx) => this.deferred.run(ctx) },
      { kind: EMBED_KIND, run: (ctx) => jobs.runEmbed(ctx) },
      { kind: AUTO_KIND, run: (ctx) => this.auto.run(ctx) },
    ]
    this.subscribers = [this.auto.subscriber() as Subscriber]
  }

  private now(): number {
    return this.d.clock.now().getTime()
  }

  /** The run of a base that has not ended, or null. */
  async inFlight(workspaceId: string, corpusId: string): Promise<Job | null> {
    const jobs = await this.d.queue.repo.listBySubject(workspaceId, corpusId, [RUN_KIND])
    return jobs.find((j) => !isTerminal(j.status)) ?? null
  }

  /** Starts a run over new or changed documents (all with `force`, extracting again those an older extractor read). */
  async train(workspaceId: string, corpusId: string, force: boolean): Promise<Job> {
    await this.d.objects.assertReadable((await this.d.corpora.get(workspaceId, corpusId)).workspace_id)
    if (await this.inFlight(workspaceId, corpusId)) throw fail('training_in_progress')
    if ((await this.d.corpora.runs.countFiles(corpusId)) === 0) throw fail('corpus_empty')
    if (force) await this.d.ingest?.reextract(workspaceId, corpusId)
    const units = await this.d.corpora.runs.waiting(corpusId, { force })
    if (units.length === 0) throw fail('nothing_to_train')
    return this.begin(workspaceId, corpusId, units, { force, auto: false })
  }

  /** Starts a run over `units`: the run, its batches, the documents' and the base's status and the event land together. */
  private async begin(
    workspaceId: string,
    corpusId: string,
    units: Unit[],
    how: { force: boolean; auto: boolean },
  ): Promise<Job> {
    const now = this.now()
    const run = await this.d.store.unit(() => this.startRun(workspaceId, corpusId, { units, ...how }, now))
    this.d.engine.warmUp()
    return run
  }

  /**
   * Enqueues the run and its batches, marks its units and the base, and tells `onboarding.started`,
   * in the caller's unit. The run in flight is looked for again here, in the unit and holding the
   * base's runs (`holdRuns`): two starts at once (two requests, or a request and an automatic run)
   * start one run, the other is a 409.
   */
  private async startRun(
    workspaceId: string,
    corpusId: string,
    { units, force, auto }: { units: Unit[]; force: boolean; auto: boolean },
    now: number,
  ): Promise<Job> {
    await this.d.corpora.holdRuns(corpusId)
    if (await this.inFlight(workspaceId, corpusId)) throw fail('training_in_progress')
    await this.auto.resume(await this.d.corpora.get(workspaceId, corpusId))
    const run = await this.d.queue.add({
      workspaceId,
      subjectId: corpusId,
      kind: RUN_KIND,
      status: 'running',
      unitsTotal: units.length,
      payload: { force, auto },
      detail: `${units.length} section(s) to onboard${auto ? ' (new documents, started by themselves)' : ''}`,
    })
    for (const batch of batchesOf(units, this.batchSize)) {
      await this.d.queue.add({
        workspaceId,
        subjectId: corpusId,
        parentId: run.id,
        kind: BATCH_KIND,
        unitsTotal: batch.length,
        // For its transient failures: its waits for documents still being extracted spend none (JobWaitingError).
        maxAttempts: 10,
        // With the content each unit had when taken: one changed after it was taken gets a follow-up run.
        payload: { unit_ids: batch.map((u) => u.id), unit_versions: batch.map((u) => u.version) },
      })
    }
    await this.d.corpora.runs.take(units, now)
    await this.d.corpora.setStatus(workspaceId, corpusId, 'training', now)
    const payload = { runId: run.id, corpusId }
    await this.d.events.publish({ type: 'onboarding.started', workspaceId, payload })
    return run
  }

  /**
   * Asks the run in flight to stop; pending batches end at once, running ones at their next unit.
   * An automatic run waiting to start is canceled too (answered when it is all there was), and
   * automatic onboarding pauses until documents arrive or a run starts.
   */
  async cancel(workspaceId: string, corpusId: string): Promise<Job> {
    await this.d.corpora.get(workspaceId, corpusId)
    const run = await this.inFlight(workspaceId, corpusId)
    const waiting = await this.auto.cancelWaiting(workspaceId, corpusId)
    if (!run && !waiting) throw fail('no_training_in_progress')
    await this.auto.pause(workspaceId, corpusId)
    if (!run) return waiting!
    await this.d.queue.repo.requestCancel(run.id)
    await this.rollUp(run.id)
    return (await this.d.queue.repo.get(run.id))!
  }

  /**
   * A job of the workspace that callers may follow, with the base it works on: one of onboarding's,
   * or of a kind another feature made readable. Another workspace's id, a kind nobody made readable
   * (a feature's inner work) and a job whose base is gone are each a 404.
   */
  async job(workspaceId: string, id: string): Promise<{ job: Job; corpusId: string }> {
    const job = await this.d.queue.repo.get(id)
    if (job && job.workspaceId === workspaceId) {
      if (KINDS.includes(job.kind)) return { job, corpusId: job.subjectId ?? '' }
      const owner = this.d.readable?.find((r) => r.kinds.includes(job.kind))
      const corpusId = (await owner?.corpusOf(job)) ?? null
      if (corpusId !== null) return { job, corpusId }
    }
    throw notFound('Job')
  }

  /** A base's jobs (or those of one kind), newest first: onboarding's, and others' readable ones about it (its encoding). */
  async jobs(workspaceId: string, corpusId: string, kind?: string): Promise<Job[]> {
    await this.d.corpora.get(workspaceId, corpusId)
    const kinds = [...KINDS, ...(this.d.readable ?? []).flatMap((r) => r.kinds)]
    return this.d.queue.repo.listBySubject(
      workspaceId,
      corpusId,
      kind === undefined ? kinds : kinds.filter((k) => k === kind),
    )
  }

  /** Queues an embed job for every base with passages without the configured model's vector (at start-up); returns how many. */
  embedMissing(): Promise<number> {
    return this.embeds.missing()
  }

  /** Queues a deferred job for every base with sections still without their cartridge (at start-up); returns how many. */
  buildMissing(): Promise<number> {
    return this.deferred.missing()
  }

  /** The wire shape of a job, with its progress, estimate and failures (`corpusId`: its base, when not its subject). */
  jobResp(job: Job, corpusId = job.subjectId ?? '') {
    return jobResp(this.d.queue, job, this.now(), corpusId)
  }

  private async settle(batch: Job): Promise<void> {
    // The deferred build starts as the run ends (rollUp): until then the run has the compile thread.
    if (batch.parentId) await this.rollUp(batch.parentId)
  }

  /** Ends a run once every batch has ended, and leaves the base and its documents consistent. */
  private async rollUp(runId: string): Promise<void> {
    const { repo } = this.d.queue
    const seen = await repo.get(runId)
    if (!seen || isTerminal(seen.status)) return
    // Counted first: every batch but the last to end stops here without reading its siblings.
    const sums = await repo.childTotals(runId)
    if (sums.ended < sums.children) return
    // Read again in the unit: of two batches' hooks ending the run at once, the second finds it ended.
    const ended = await this.d.store.unit(async () => {
      if (seen.subjectId) await this.d.corpora.holdRuns(seen.subjectId)
      const run = await repo.get(runId)
      if (!run || isTerminal(run.status)) return null
      return { run, corpusStatus: await this.endRun(run, await repo.children(runId)) }
    })
    if (!ended) return
    const { run, corpusStatus } = ended
    // Answers by rag now; cartridges and built-in vectors follow (deferred job), a server's (embed job).
    if (corpusStatus === 'ready') {
      const deferred = await this.deferred.later(run.workspaceId, run.subjectId!)
      // Not before a check (after a forced run): it reads every kept cartridge next and the deferred
      // job warms the base at its end; a warm now would race it to the damage and take its count.
      if (!deferred?.payload.check)
        this.d.engine.warmBase(run.subjectId!).catch((e) => {
          this.d.log.warn('warming a base failed', { corpus_id: run.subjectId, error: (e as Error).message })
        })
      if (this.d.engine.embedsAfterOnboarding) await this.embeds.later(run.workspaceId, run.subjectId!)
    }
  }

  /** Records a run's end (figures, the documents' and base's status), tells it, in the caller's unit; returns the base's status. */
  private async endRun(run: Job, children: Job[]): Promise<'ready' | 'failed' | 'new'> {
    const now = this.now()
    const runId = run.id
    const canceled = run.cancelRequested || children.some((c) => c.status === 'canceled')
    const failed = children.filter((c) => c.status === 'failed')
    const stats = runStats(children)
    // Nothing may stay "onboarding" once no run is working on it.
    await this.d.corpora.runs.release(run.subjectId!, now)
    const counts = await this.d.corpora.runs.fileCounts(run.subjectId!)
    const corpusStatus =
      counts.ready > 0 ? 'ready' : counts.failed > 0 && counts.pending === 0 ? 'failed' : 'new'
    await this.d.corpora.setStatus(run.workspaceId, run.subjectId!, corpusStatus, now)
    const status = canceled ? 'canceled' : failed.length > 0 ? 'failed' : 'succeeded'
    await this.d.queue.repo.updateAggregate(runId, {
      status,
      unitsDone: stats.units,
      // This run's figures: the base's own failed count includes earlier runs' failures.
      detail: `${stats.units} section(s) onboarded, ${stats.failed} failed`,
      error: failed[0]?.error ?? null,
    })
    await this.d.queue.repo.setResult(runId, stats)
    await this.auto.afterRun(run, children, status)
    const payload = { runId, corpusId: run.subjectId! }
    const { events } = this.d
    const workspaceId = run.workspaceId
    if (status === 'canceled') await events.publish({ type: 'onboarding.cancelled', workspaceId, payload })
    else if (status === 'succeeded')
      await events.publish({ type: 'onboarding.finished', workspaceId, payload })
    else
      await events.publish({
        type: 'onboarding.failed',
        workspaceId,
        payload: { ...payload, error: failed[0]?.error ?? '' },
      })
    return corpusStatus
  }
}
