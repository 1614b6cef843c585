import type { Clock } from '../../platform/clock/clock'
import { type JobContext, TransientError } from '../../platform/jobs/scheduler'
import { LlmUnavailableError } from '../../platform/llm/server-request'
import type { Logger } from '../../platform/log/log'
import type { ObjectStore } from '../../platform/storage/object-store'
import type { Engine, PreparedSection } from '../engine/engine.service'
import type { OnboardingRepo, UnitRow } from './onboarding.repo'

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

/** A run: the aggregate of its batches. */
export const RUN_KIND = 'train'
/** A batch of units onboarded by one job. */
export const BATCH_KIND = 'train_batch'
/** Embedding a base's passages for re-ranking by meaning, after onboarding (with an embeddings server). */
export const EMBED_KIND = 'embed'
/** Sections an embed job sends to the embeddings server in one step (between cancel checks). */
const EMBED_SECTIONS_PER_STEP = 8
/** Tries of an embed job while the embeddings server is down (backoff up to 5 minutes each: hours). */
export const EMBED_ATTEMPTS = 30
/** Every job kind onboarding runs (other kinds' ids are a 404 here). */
export const KINDS: readonly string[] = [RUN_KIND, BATCH_KIND, EMBED_KIND]
/** Sections of a document compiled ahead of the one being indexed. */
const COMPILE_AHEAD = 1

/** Measured cost of a run, kept in its result for economics. */
export interface RunStats {
  units: number
  chars: number
  cpuMs: number
}

/** What the onboarding jobs work with. */
export interface OnboardingJobDeps {
  clock: Clock
  log: Logger
  objects: ObjectStore
  engine: SectionOnboarder
  repo: OnboardingRepo
}

/**
 * The work of onboarding's jobs: a batch onboards its units (extracted text into the engine's index
 * and cartridges), an embed job gives a base's passages their vectors. The service queues them and
 * rolls runs up when their batches settle.
 */
export class OnboardingJobs {
  private readonly repo: OnboardingRepo

  constructor(private readonly d: OnboardingJobDeps) {
    this.repo = d.repo
  }

  private now(): number {
    return this.d.clock.now().getTime()
  }

  /** Onboards the units of one batch, reading the cancel flag between units. */
  async runBatch(ctx: JobContext): Promise<RunStats> {
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
  async runEmbed(ctx: JobContext): Promise<{ vectors: number }> {
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
}
