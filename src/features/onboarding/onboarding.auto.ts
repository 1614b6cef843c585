import type { Clock } from '../../platform/clock/clock'
import type { Store } from '../../platform/db/store'
import type { Subscriber } from '../../platform/events/dispatcher'
import { isTerminal, type Job, type JobQueue } from '../../platform/jobs/queue'
import type { JobContext } from '../../platform/jobs/scheduler'
import type { CorporaService, CorpusRow, Unit } from '../corpora/corpora.service'

/** Waits for new documents to stop arriving, then starts a run over them (`auto_onboard`). */
export const AUTO_KIND = 'train_auto'

/** The debounce of automatic runs (`[onboarding]` auto_delay_ms and auto_max_wait_ms). */
export interface AutoTiming {
  /**
   * Quiet time after an upload, push or sync has been extracted before its documents' run starts:
   * a folder uploaded file by file (one sync run a request) ends up in one run, not one each.
   */
  delayMs: number
  /** Longest arrivals that keep coming put a run off: past it the run starts with what is extracted. */
  maxWaitMs: number
}

/** What automatic onboarding works with. */
export interface AutoOnboardingDeps {
  clock: Clock
  store: Store
  timing: AutoTiming
  queue: JobQueue
  corpora: CorporaService
  /** The run of a base that has not ended, or null. */
  inFlight(workspaceId: string, corpusId: string): Promise<Job | null>
  /** Starts a run over these units (in its own unit), flagged as started automatically. */
  begin(workspaceId: string, corpusId: string, units: Unit[]): Promise<Job>
}

/** What a `train_auto` job did, kept as its result. */
export interface AutoOutcome {
  run_id: string | null
  reason: string
}

/**
 * Onboarding of new and changed documents without anyone asking, in a base that has been onboarded
 * and keeps `auto_onboard` on. A sync run that ends with documents created or updated (an upload, a
 * push commit, an upsert, a source's sync or an import: `sync.finished`) schedules one `train_auto`
 * job a base, due `delayMs` later; each later arrival puts it off again, up to `maxWaitMs` after
 * the first, so a push of 1,000 files (one sync run) or a folder uploaded file by file starts
 * one run. When it is due it starts a run over the extracted pending documents, unless a run is in
 * flight: that run, when it ends (succeeded or failed, not canceled), schedules the next one for the
 * documents that arrived while it ran.
 */
export class AutoOnboarding {
  constructor(private readonly d: AutoOnboardingDeps) {}

  private now(): number {
    return this.d.clock.now().getTime()
  }

  /** The base, or null when it was deleted meanwhile. */
  private async base(workspaceId: string, corpusId: string): Promise<CorpusRow | null> {
    return (await this.d.corpora.exists(workspaceId, corpusId))
      ? this.d.corpora.get(workspaceId, corpusId)
      : null
  }

  /** Whether a base onboards new documents by itself: its switch is on and it has been onboarded. */
  applies(base: CorpusRow): boolean {
    return base.auto_onboard === 1 && base.status !== 'new'
  }

  /** The `train_auto` job of a base waiting to be due, or null. */
  async waiting(workspaceId: string, corpusId: string): Promise<Job | null> {
    const jobs = await this.d.queue.repo.listBySubject(workspaceId, corpusId, [AUTO_KIND])
    return jobs.find((j) => j.status === 'pending') ?? null
  }

  /**
   * Schedules the base's automatic run `delayMs` from now, or puts off the one waiting (never past
   * `maxWaitMs` after it was first asked for). Nothing when the base does not onboard by itself. In
   * one unit (the caller's, when it runs in one).
   */
  schedule(workspaceId: string, corpusId: string, delayMs = this.d.timing.delayMs): Promise<Job | null> {
    return this.d.store.unit(() => this.scheduleNow(workspaceId, corpusId, delayMs))
  }

  private async scheduleNow(workspaceId: string, corpusId: string, delayMs: number): Promise<Job | null> {
    const base = await this.base(workspaceId, corpusId)
    if (!base || !this.applies(base)) return null
    await this.resume(base)
    const now = this.now()
    const waiting = await this.waiting(workspaceId, corpusId)
    if (waiting) {
      const firstAt = Number(waiting.payload.first_at ?? waiting.createdAt)
      await this.d.queue.repo.postpone(waiting.id, Math.min(now + delayMs, firstAt + this.d.timing.maxWaitMs))
      return waiting
    }
    return this.d.queue.add({
      workspaceId,
      subjectId: corpusId,
      kind: AUTO_KIND,
      runAt: now + delayMs,
      payload: { first_at: now },
      maxAttempts: 3,
      detail: 'New documents are onboarded once no more arrive for a moment.',
    })
  }

  /** The `train_auto` job: starts the run, or says why it did not. */
  async run(ctx: JobContext): Promise<AutoOutcome> {
    const { workspaceId, subjectId } = ctx.job
    const out = await this.start(workspaceId, subjectId ?? '')
    await ctx.progress({ detail: out.reason })
    return out
  }

  private async start(workspaceId: string, corpusId: string): Promise<AutoOutcome> {
    const base = await this.base(workspaceId, corpusId)
    if (!base) return { run_id: null, reason: 'The base was deleted.' }
    if (!this.applies(base)) return { run_id: null, reason: 'The base no longer onboards by itself.' }
    const running = await this.d.inFlight(workspaceId, corpusId)
    if (running) {
      return {
        run_id: null,
        reason: `Run ${running.id} is in flight; the new documents go to the run that follows it.`,
      }
    }
    const units = await this.d.corpora.runs.waiting(corpusId, { extracted: true })
    if (units.length === 0) return { run_id: null, reason: 'Nothing new to onboard.' }
    const run = await this.d.begin(workspaceId, corpusId, units)
    return { run_id: run.id, reason: `Started run ${run.id} over ${units.length} new section(s).` }
  }

  /**
   * After a run ends (in its unit): documents that arrived while it ran, extracted and not in it,
   * get the next run at once. A canceled run is not followed: someone asked onboarding to stop.
   */
  async afterRun(run: Job, children: Job[], status: 'succeeded' | 'failed' | 'canceled'): Promise<void> {
    if (status === 'canceled' || !run.subjectId) return
    const taken = takenBy(children)
    const waiting = await this.d.corpora.runs.waiting(run.subjectId, { extracted: true })
    if (waiting.some((u) => !tookAsIs(taken, u))) await this.schedule(run.workspaceId, run.subjectId, 0)
  }

  /**
   * Whether extracted units wait that no run will take. A run in flight takes the units of its
   * batches still to end, with their sections: a document it took before its text was extracted is
   * `pending` again once extracted (with new section rows), yet that run onboards it.
   */
  private async leftOver(workspaceId: string, corpusId: string): Promise<boolean> {
    if (!(await this.d.corpora.runs.hasWaiting(corpusId))) return false
    const run = await this.d.inFlight(workspaceId, corpusId)
    if (!run) return true
    const taken = takenBy((await this.d.queue.repo.children(run.id)).filter((c) => !isTerminal(c.status)))
    const waiting = await this.d.corpora.runs.waiting(corpusId, { extracted: true })
    return waiting.some((u) => u.status === 'pending' && !tookAsIs(taken, u))
  }

  /**
   * After a cancel: the base's waiting documents are not onboarded by themselves (`auto_onboard_paused`)
   * until documents arrive (`schedule`) or a run starts (`resume`).
   */
  async pause(workspaceId: string, corpusId: string): Promise<void> {
    await this.d.corpora.update(workspaceId, corpusId, { autoOnboardPaused: true })
  }

  /** Ends a pause (documents arrived, or a run starts); writes nothing when there is none. */
  async resume(base: CorpusRow): Promise<void> {
    if (base.auto_onboard_paused === 1)
      await this.d.corpora.update(base.workspace_id, base.id, { autoOnboardPaused: false })
  }

  /** Cancels the base's waiting `train_auto` job, if any; returns it. */
  async cancelWaiting(workspaceId: string, corpusId: string): Promise<Job | null> {
    const waiting = await this.waiting(workspaceId, corpusId)
    if (!waiting) return null
    const { repo } = this.d.queue
    return this.d.store.unit(async () => {
      // Guarded: a job that started meanwhile is not canceled here (the run's cancel stops it).
      if (!(await repo.cancelPending(waiting.id))) return null
      const detail =
        'Canceled: the waiting documents are onboarded once documents are added or changed, or a run is started.'
      await repo.updateAggregate(waiting.id, { detail })
      return repo.get(waiting.id)
    })
  }

  /** Reacts to a sync run that ended with new or changed documents (see the class comment). */
  subscriber(): Subscriber<'sync.finished'> {
    return {
      name: 'onboarding.auto',
      types: ['sync.finished'],
      // Only this database is written, in the delivery's unit: the job and the delivery commit together.
      transactional: true,
      handle: async (e) => {
        const { corpusId, created, updated } = e.payload
        if (created + updated === 0) return
        // A base that does not onboard by itself (a new one being filled) needs no look at its jobs.
        const base = await this.base(e.workspaceId, corpusId)
        if (!base || !this.applies(base)) return
        // Delivered late, the run someone started meanwhile may have taken them all already.
        if (await this.leftOver(e.workspaceId, corpusId)) await this.schedule(e.workspaceId, corpusId)
      },
    }
  }
}

/** Units batches took, by id, with the content each had then (null: a batch queued before versions were kept). */
function takenBy(batches: Job[]): Map<string, string | null> {
  const taken = new Map<string, string | null>()
  for (const b of batches) {
    const ids = (b.payload.unit_ids as string[] | undefined) ?? []
    const versions = b.payload.unit_versions as string[] | undefined
    ids.forEach((id, i) => {
      taken.set(id, versions?.[i] ?? null)
    })
  }
  return taken
}

/**
 * Whether a run took this unit as it is now: the unit, or the document it is a section of (a run
 * may take a document before its extraction made sections), with the same content. A unit whose
 * file was uploaded again after the run took it is not: the run onboarded (or will) the old text.
 */
function tookAsIs(taken: Map<string, string | null>, u: Unit): boolean {
  const own = taken.get(u.id)
  const version = own !== undefined ? own : u.parentId ? taken.get(u.parentId) : undefined
  return version !== undefined && (version === null || version === u.version)
}
