import type { Clock } from '../../platform/clock/clock'
import { yieldToLoop } from '../../platform/concurrency/yield'
import { type JobContext, JobWaitingError, TransientError } from '../../platform/jobs/scheduler'
import { LlmUnavailableError } from '../../platform/llm/server-request'
import type { Logger } from '../../platform/log/log'
import type { ObjectStore } from '../../platform/storage/object-store'
import type { DocumentRuns, Unit } from '../corpora/corpora.service'
import type { Engine, IndexedSection, SectionInput } from '../engine/engine.service'
import {
  extractionWaitMs,
  GROUP,
  GROUPS_AHEAD,
  type Group,
  type GroupLimits,
  NONE,
  type PlannedLeaf,
  type PlannedUnit,
  PUBLISHED_GROUP,
  type RunStats,
  TAKE_AFTER_MS,
} from './onboarding.batches'

/** The answer engine's onboarding calls this feature needs. */
export type SectionOnboarder = Pick<
  Engine,
  | 'indexSections'
  | 'chunkSections'
  | 'buildDeferred'
  | 'builds'
  | 'warmBase'
  | 'warmUp'
  | 'removeDocument'
  | 'removeBase'
  | 'embeddingModel'
  | 'embedsAfterOnboarding'
  | 'embedSections'
  | 'basesWithoutVectors'
  | 'sectionsOf'
  | 'syncBase'
  | 'writeBase'
  | 'writesPublished'
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
export { BATCH_UNITS, type BatchUnit, batchesOf } from './onboarding.batches'

/** What the onboarding jobs work with. */
export interface OnboardingJobDeps {
  clock: Clock
  log: Logger
  objects: ObjectStore
  engine: SectionOnboarder
  /** The documents' side of runs: units read and settled through corpora (it tells `document.ready` / `.failed`). */
  runs: DocumentRuns
}

/**
 * The work of onboarding's jobs: a batch onboards its units (extracted text into the engine's index
 * and cartridges), an embed job gives a base's passages their vectors. The service queues them and
 * rolls runs up when their batches settle.
 */
export class OnboardingJobs {
  private readonly runs: DocumentRuns

  constructor(private readonly d: OnboardingJobDeps) {
    this.runs = d.runs
  }

  private now(): number {
    return this.d.clock.now().getTime()
  }

  /**
   * Onboards the units of one batch, a group of sections at a time (the cancel flag is read between
   * groups): their text indexed for rag (Engine.indexSections), the next group's texts read while the
   * current one is indexed. Cartridges and vectors follow in the base's deferred job (onboarding.deferred.ts).
   */
  async runBatch(ctx: JobContext): Promise<RunStats> {
    const ids = (ctx.job.payload.unit_ids as string[]) ?? []
    const stats: RunStats = { units: 0, chars: 0, cpuMs: 0, failed: 0 }
    const texts = new Map<string, Promise<string | null>>()
    const cursor = { next: 0, done: 0 }
    // The process's CPU time while the batch ran (threads and other work included), read once a batch.
    const cpu0 = process.cpuUsage()
    ctx.checkpoint()
    const limits = this.d.engine.writesPublished ? PUBLISHED_GROUP : GROUP
    const ahead = [await this.planGroup(ids, cursor, texts, stats, limits)]
    while (ahead[0]!.units.length > 0) {
      while (ahead.length < GROUPS_AHEAD && ahead.at(-1)!.units.length > 0)
        ahead.push(await this.planGroup(ids, cursor, texts, stats, limits))
      const group = ahead.shift()!
      await this.onboardGroup(group, stats)
      await ctx.progress({ unitsDone: group.done, detail: `${group.done}/${ids.length} onboarded` })
      ctx.checkpoint()
      // Requests in between: a group whose texts and chunks were ready ran without one hop out to the
      // event loop, and so did the next, so a batch held a question or a poll for all of its groups.
      await yieldToLoop()
    }
    const next = ahead[0]!
    // Not an attempt: the batch looks again soon, for as long as the extraction takes (it ends
    // within its own timeout and attempts, extracted or failed).
    if (next.waiting)
      throw new JobWaitingError(
        `Waiting for the text extraction of ${next.waiting}.`,
        extractionWaitMs(ctx.job.startedAt, this.now()),
      )
    const cpu = process.cpuUsage(cpu0)
    stats.cpuMs = (cpu.user + cpu.system) / 1000
    return stats
  }

  /**
   * The next units of a batch to onboard together (up to `limits`' sections or text), each leaf's
   * text being read. Units done by an earlier attempt of the
   * batch (a retry after a crash or a transient failure) or deleted meanwhile are passed over; a
   * document still waiting for its text extraction ends the group and, when it comes first, is
   * returned as `waiting` (the batch retries later); those an earlier attempt ended count in `stats`.
   */
  private async planGroup(
    ids: string[],
    cursor: { next: number; done: number },
    texts: Map<string, Promise<string | null>>,
    stats: RunStats,
    limits: GroupLimits,
  ): Promise<Group> {
    const group: Group = { units: [], done: cursor.done, waiting: null, chunked: NONE }
    let sections = 0
    let chars = 0
    // Units and their leaves are read a group's sections at a time, in two queries instead of two a unit
    // (a group is mostly that many units or fewer; more when some are done, failed or gone).
    let read = cursor.next
    let units = new Map<string, Unit>()
    let leavesOf = new Map<string, Unit[]>()
    while (cursor.next < ids.length && sections < limits.sections && chars < limits.chars) {
      if (cursor.next >= read) {
        const ahead = ids.slice(cursor.next, cursor.next + limits.sections)
        units = await this.runs.unitsById(ahead)
        leavesOf = await this.runs.leavesOfAll(ahead)
        read = cursor.next + ahead.length
      }
      const unit = units.get(ids[cursor.next]!) ?? null
      if (unit && unit.status !== 'ready' && unit.status !== 'failed') {
        if (unit.textKey === null) {
          if (group.units.length === 0) group.waiting = unit.path
          break
        }
        const leaves = leavesOf.get(unit.id)!
        const todo = (leaves.length > 0 ? leaves : [unit]).filter(
          (l) => l.status !== 'ready' || l.id === unit.id,
        )
        group.units.push({ unit, leaves, todo: todo.map((leaf) => this.read(leaf, texts)) })
        sections += todo.length
        chars += todo.reduce((n, l) => n + l.textChars, 0)
      } else if (unit?.status === 'ready') stats.units += Math.max(1, leavesOf.get(unit.id)!.length)
      else if (unit?.status === 'failed') stats.failed++
      cursor.next++
      cursor.done++
    }
    group.done = cursor.done
    if (group.units.length > 0) group.chunked = this.chunk(group)
    return group
  }

  /**
   * The group's sections chunked (Engine.chunkSections) once their texts are read; null when that
   * fails. A thread's chunking can be taken back (`take`, CompileThreads.index) once the group is due.
   */
  private async chunk(group: Group): Promise<IndexedSection[] | null> {
    const read = await Promise.all(group.units.flatMap((u) => u.todo.map((p) => p.text.catch(() => null))))
    const texts = read.filter((t): t is string => t !== null)
    const chunking = this.d.engine.chunkSections(texts, group.units[0]!.unit.corpusId)
    const take = chunking.take
    if (take) group.take = () => setTimeout(take, TAKE_AFTER_MS)
    if (group.due) group.take?.()
    return chunking.catch(() => null)
  }

  /** A leaf's text being read; a failure is kept for its turn (one left unread is not reported). */
  private read(leaf: Unit, texts: Map<string, Promise<string | null>>): PlannedLeaf {
    const text = this.leafText(leaf, texts)
    text.catch(() => {})
    return { leaf, text }
  }

  /**
   * Indexes a group's sections together (Engine.indexSections) and records each unit's outcome: a unit with a section that failed is marked failed, and does not stop the batch.
   */
  private async onboardGroup(group: Group, stats: RunStats): Promise<void> {
    const inputs: SectionInput[] = []
    const owners: { unit: PlannedUnit; leaf: Unit; chars: number }[] = []
    const errors = new Map<PlannedUnit, Error>()
    for (const u of group.units) {
      const { workspaceId: ws, corpusId } = u.unit
      for (const p of u.todo) {
        const text = await p.text.catch((e: Error) => e)
        if (text instanceof Error) {
          if (!errors.has(u)) errors.set(u, text)
          continue
        }
        const leaf = p.leaf
        inputs.push({
          workspaceId: ws,
          baseId: corpusId,
          documentId: leaf.parentId ?? leaf.id,
          sectionId: leaf.id,
          title: leaf.sectionTitle ?? leaf.path,
          filename: leaf.path,
          text,
        })
        owners.push({ unit: u, leaf, chars: text.length })
      }
    }
    // Chunked on a thread when it gets to it in time (the groups before took long enough), else here.
    group.due = true
    group.take?.()
    const all = await group.chunked
    const chunked = all?.length === inputs.length ? all : undefined
    const results = await this.d.engine.indexSections(inputs, chunked)
    const ready: Unit[] = []
    results.forEach((r, i) => {
      const { unit, leaf, chars } = owners[i]!
      if (r instanceof Error) {
        if (!errors.has(unit)) errors.set(unit, r)
        return
      }
      ready.push(leaf)
      stats.units++
      stats.chars += chars
    })
    for (const [u, e] of errors) {
      this.d.log.warn('onboarding a document failed', { document_id: u.unit.id, error: e.message })
      stats.failed++
    }
    const failed = [...errors].map(([u, e]) => ({ unit: u.unit, error: e.message }))
    const parents = group.units.flatMap((u) => [u.unit.parentId, ...u.leaves.map((l) => l.parentId)])
    const settled = { ready, failed, parents: parents.filter((p): p is string => p !== null) }
    await this.runs.settle(settled, this.now())
  }

  /** A leaf's text: its slice of the document's text sidecar (read once per batch, or per call without `texts`). */
  async leafText(leaf: Unit, texts = new Map<string, Promise<string | null>>()): Promise<string> {
    const key = leaf.textKey
    if (!key) throw new Error('The document has no extracted text; upload it again.')
    let read = texts.get(key)
    if (!read) {
      read = this.d.objects.getText(key)
      texts.set(key, read)
    }
    const all = await read
    if (all === null || all === undefined)
      throw new Error('The extracted text is missing; upload the document again.')
    return leaf.textOffset === null ? all : all.slice(leaf.textOffset, leaf.textOffset + leaf.textChars)
  }

  /** Embeds a base's passages that have no vector yet, a few sections a step; the cancel flag is read between steps. */
  async runEmbed(ctx: JobContext): Promise<{ vectors: number }> {
    const baseId = ctx.job.subjectId!
    await this.d.engine.syncBase(baseId)
    const sections = this.d.engine.sectionsOf(baseId).map((s) => s.sectionId)
    let vectors = 0
    await ctx.progress({ unitsTotal: sections.length })
    for (let i = 0; i < sections.length; i += EMBED_SECTIONS_PER_STEP) {
      ctx.checkpoint()
      const step = sections.slice(i, i + EMBED_SECTIONS_PER_STEP)
      try {
        vectors += await this.d.engine.writeBase(baseId, ctx.job.workspaceId, () =>
          this.d.engine.embedSections(step),
        )
      } catch (e) {
        // Vectors stored so far stay; the next attempt starts with the sections still without them.
        if (e instanceof LlmUnavailableError) throw new TransientError(e.message)
        throw e
      }
      const done = i + step.length
      await ctx.progress({ unitsDone: done, detail: `${done}/${sections.length} sections embedded` })
    }
    return { vectors }
  }
}
