import { type Clock, iso } from '../../platform/clock/clock'
import type { Db } from '../../platform/db/db'
import { fail, notFound } from '../../platform/errors/errors'
import type { JobDefinition } from '../../platform/feature/feature'
import { isTerminal, type Job, type JobQueue } from '../../platform/jobs/queue'
import { type JobContext, TransientError } from '../../platform/jobs/scheduler'
import { LlmUnavailableError } from '../../platform/llm/server-request'
import type { Logger } from '../../platform/log/log'
import type { ObjectStore } from '../../platform/storage/object-store'
import type { CorporaService } from '../corpora/corpora.service'
import type { Engine, PreparedSection } from '../engine/engine.service'
import { OnboardingRepo, type UnitRow } from './onboarding.repo'

/** The answer engine's onboarding calls this feature needs. */
export type SectionOnboarder = Pick<
  Engine,
  | 'prepareSection'
  | 'onboardSection'
  | 'warmBase'
  | 'removeDocument'
  | 'removeBase'
  | 'embeddingModel'
  | 'embedsAfterOnboarding'
  | 'embedSections'
  | 'basesWithoutVectors'
  | 'sectionsOf'
>

export interface OnboardingDeps {
  db: Db
  clock: Clock
  log: Logger
  queue: JobQueue
  objects: ObjectStore
  corpora: CorporaService
  engine: SectionOnboarder
  /** Units per batch job. */
  batchSize?: number
}

export const RUN_KIND = 'train'
export const BATCH_KIND = 'train_batch'
/** Embedding a base's passages for re-ranking by meaning, after onboarding (with an embeddings server). */
export const EMBED_KIND = 'embed'
/** Sections an embed job sends to the embeddings server in one step (between cancel checks). */
const EMBED_SECTIONS_PER_STEP = 8
/** Tries of an embed job while the embeddings server is down (backoff up to 5 minutes each: hours). */
const EMBED_ATTEMPTS = 30
const KINDS: readonly string[] = [RUN_KIND, BATCH_KIND, EMBED_KIND]
/** Sections of a document compiled ahead of the one being indexed. */
const COMPILE_AHEAD = 1

/** Measured cost of a run, kept in its result for economics. */
export interface RunStats {
  units: number
  chars: number
  cpuMs: number
}

/**
 * Onboarding runs: a `train` aggregate with `train_batch` children run by the job scheduler. Each
 * batch extracts (when needed) and onboards its units, reading the cancel flag between units. With
 * an embeddings server, an `embed` job follows each run: the base answers (lexically) as soon as the
 * run ends, and re-ranking by meaning starts once its passages have vectors.
 */
export class OnboardingService {
  readonly repo: OnboardingRepo
  private readonly batchSize: number

  constructor(private readonly d: OnboardingDeps) {
    this.repo = new OnboardingRepo(d.db)
    this.batchSize = d.batchSize ?? 16
  }

  /** The jobs onboarding runs: its batches (settling the run when the last ends) and embedding. */
  jobDefinitions(): JobDefinition[] {
    return [
      { kind: BATCH_KIND, run: (ctx) => this.runBatch(ctx), onSettled: (job) => this.settle(job) },
      { kind: EMBED_KIND, run: (ctx) => this.runEmbed(ctx) },
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
    const run = this.d.queue.enqueue({
      workspaceId,
      subjectId: corpusId,
      kind: RUN_KIND,
      status: 'running',
      unitsTotal: units.length,
      payload: { force },
      detail: `${units.length} section(s) to onboard`,
    })
    for (let i = 0; i < units.length; i += this.batchSize) {
      const batch = units.slice(i, i + this.batchSize)
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

  /** Progress (0..1) and an estimate from measured throughput, in seconds. */
  progressOf(job: Job): { progress: number; eta: number | null } {
    let done = job.unitsDone
    let total = job.unitsTotal
    if (job.kind === RUN_KIND) {
      const children = this.d.queue.children(job.id)
      done = children.reduce((a, c) => a + (c.status === 'succeeded' ? c.unitsTotal : c.unitsDone), 0)
      total = Math.max(
        total,
        children.reduce((a, c) => a + c.unitsTotal, 0),
      )
    }
    if (job.status === 'succeeded') return { progress: 1, eta: 0 }
    const progress = total > 0 ? Math.min(1, done / total) : 0
    if (isTerminal(job.status) || !job.startedAt || done <= 0)
      return { progress, eta: isTerminal(job.status) ? 0 : null }
    const elapsed = (this.now() - job.startedAt) / 1000
    const rate = done / Math.max(elapsed, 1e-3)
    return { progress, eta: Math.round(((total - done) / rate) * 10) / 10 }
  }

  /** The wire shape of a job. */
  jobResp(job: Job) {
    const { progress, eta } = this.progressOf(job)
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

  private async runBatch(ctx: JobContext): Promise<RunStats> {
    const ids = (ctx.job.payload.unit_ids as string[]) ?? []
    const stats: RunStats = { units: 0, chars: 0, cpuMs: 0 }
    const texts = new Map<string, string | null>()
    let done = 0
    // The process's CPU time while the batch ran (threads and other work included), read once a batch.
    const cpu0 = process.cpuUsage()
    for (const id of ids) {
      ctx.checkpoint()
      const unit = this.repo.unit(id)
      if (unit) await this.onboardUnit(unit, stats, texts)
      done++
      ctx.progress({ unitsDone: done, detail: `${done}/${ids.length} onboarded` })
    }
    const cpu = process.cpuUsage(cpu0)
    stats.cpuMs = (cpu.user + cpu.system) / 1000
    return stats
  }

  /**
   * Onboards one unit (a section, a one-section document, or a document whose sections were made
   * after the run started). A failure of this unit marks it failed and does not stop the batch; a
   * document still waiting for its text extraction retries the batch later.
   */
  private async onboardUnit(
    unit: UnitRow,
    stats: RunStats,
    texts: Map<string, string | null>,
  ): Promise<void> {
    const { workspace_id: ws, corpus_id: corpusId } = unit
    // Done by an earlier attempt of this batch (a retry after a crash or a transient failure).
    if (unit.status === 'ready' || unit.status === 'failed') return
    if (unit.text_key === null) {
      throw new TransientError(`Waiting for the text extraction of ${unit.path}.`)
    }
    const leaves = this.repo.leavesOf(unit.id)
    const todo = (leaves.length > 0 ? leaves : [unit]).filter((l) => l.status !== 'ready' || l.id === unit.id)
    // A section compiles while the one before is indexed (on the engine's compile thread, the two
    // overlap). A section whose text is missing is left to its own turn, which fails it; a compile
    // left unread after a failure is dropped, not reported.
    const prepared: Promise<PreparedSection>[] = []
    const prepare = async (i: number) => {
      if (i >= todo.length || prepared[i]) return
      const text = await this.leafText(todo[i]!, texts).catch(() => null)
      if (text === null) return
      const p = this.d.engine.prepareSection(text)
      p.catch(() => {})
      prepared[i] = p
    }
    try {
      for (const [i, leaf] of todo.entries()) {
        const text = await this.leafText(leaf, texts)
        for (let j = i; j <= i + COMPILE_AHEAD; j++) await prepare(j)
        await this.d.engine.onboardSection(
          {
            workspaceId: ws,
            baseId: corpusId,
            documentId: leaf.parent_id ?? leaf.id,
            sectionId: leaf.id,
            title: leaf.section_title ?? leaf.path,
            filename: leaf.path,
            text,
          },
          prepared[i],
        )
        stats.units++
        stats.chars += text.length
        this.repo.setStatus([leaf.id], 'ready', null, this.now())
      }
    } catch (e) {
      this.d.log.warn('onboarding a document failed', { document_id: unit.id, error: (e as Error).message })
      this.repo.setStatus([unit.id], 'failed', (e as Error).message, this.now())
    }
    const parents = [unit.parent_id, ...leaves.map((l) => l.parent_id)].filter((p): p is string => p !== null)
    this.repo.rollUpParents(parents, this.now())
  }

  /** A leaf's text: its slice of the document's text sidecar (read once per batch). */
  private async leafText(leaf: UnitRow, texts: Map<string, string | null>): Promise<string> {
    const key = leaf.text_key
    if (!key) throw new Error('The document has no extracted text; upload it again.')
    if (!texts.has(key)) texts.set(key, await this.d.objects.getText(key))
    const all = texts.get(key)
    if (all === null || all === undefined)
      throw new Error('The extracted text is missing; upload the document again.')
    return leaf.text_offset === null ? all : all.slice(leaf.text_offset, leaf.text_offset + leaf.text_chars)
  }

  /** Embeds a base's passages that have no vector yet, a few sections a step; the cancel flag is read between steps. */
  private async runEmbed(ctx: JobContext): Promise<{ vectors: number }> {
    const sections = this.d.engine.sectionsOf(ctx.job.subjectId!).map((s) => s.sectionId)
    let vectors = 0
    ctx.progress({ unitsTotal: sections.length })
    for (let i = 0; i < sections.length; i += EMBED_SECTIONS_PER_STEP) {
      ctx.checkpoint()
      const step = sections.slice(i, i + EMBED_SECTIONS_PER_STEP)
      try {
        vectors += await this.d.engine.embedSections(step)
      } catch (e) {
        // Vectors stored so far stay; the next attempt starts with the sections still without them.
        if (e instanceof LlmUnavailableError) throw new TransientError(e.message)
        throw e
      }
      const done = i + step.length
      ctx.progress({ unitsDone: done, detail: `${done}/${sections.length} sections embedded` })
    }
    return { vectors }
  }

  private settle(batch: Job): void {
    if (batch.parentId) this.rollUp(batch.parentId)
  }

  /** Ends a run once every batch has ended, and leaves the base and its documents consistent. */
  private rollUp(runId: string): void {
    const run = this.d.queue.get(runId)
    if (!run || isTerminal(run.status)) return
    const children = this.d.queue.children(runId)
    if (!children.every((c) => isTerminal(c.status))) return
    const now = this.now()
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
    // Cartridges compiled on a thread are not warm yet: load them now, not on the first question.
    if (corpusStatus === 'ready') {
      this.d.engine.warmBase(run.subjectId!).catch((e) => {
        this.d.log.warn('warming a base failed', { corpus_id: run.subjectId, error: (e as Error).message })
      })
      // An in-process model embedded the passages as they were indexed.
      if (this.d.engine.embedsAfterOnboarding) this.embedLater(run.workspaceId, run.subjectId!)
    }
  }
}
