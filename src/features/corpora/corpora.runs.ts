import type { Db } from '../../platform/db/db'
import { transaction } from '../../platform/db/transaction'
import type { Outbox } from '../../platform/events/outbox'
import { assertMove, stateOf } from './corpora.lifecycle'
import { type Unit, UnitsRepo } from './corpora.units.repo'

/** What a batch of a run did with its units: those onboarded, those that failed, and their parents. */
export interface SettledUnits {
  ready: Unit[]
  failed: { unit: Unit; error: string }[]
  parents: string[]
}

/**
 * The commands and questions of onboarding runs about documents (`CorporaService.runs`): which
 * units wait for a run, a run taking them (`onboarding`), settling them (`ready`, `failed`) and
 * releasing what a stopped run did not settle. Each move is one of the lifecycle's
 * (corpora.lifecycle.ts); onboarding keeps only its runs (jobs) and asks here for the rest.
 */
export class DocumentRuns {
  private readonly units: UnitsRepo

  constructor(private readonly d: { db: Db; events: Outbox }) {
    this.units = new UnitsRepo(d.db)
  }

  /**
   * Units a run should onboard, oldest first: the leaves still waiting (new or changed since the last
   * run); with `force` the ready ones too; `extracted` leaves out those whose text is still being
   * extracted (an automatic run takes them in the run after their sync).
   */
  waiting(corpusId: string, opts: { force?: boolean; extracted?: boolean } = {}): Unit[] {
    return this.units.units(corpusId, opts.force ?? false, opts.extracted ?? false)
  }

  /** Whether a base has extracted units waiting for a run (not in one now). */
  hasWaiting(corpusId: string): boolean {
    return this.units.hasWaiting(corpusId)
  }

  /** Number of parent documents (files) of a base. */
  countFiles(corpusId: string): number {
    return this.units.documentCount(corpusId)
  }

  /** One unit by id, or null when it was deleted meanwhile. */
  unit(id: string): Unit | null {
    return this.units.unit(id)
  }

  /** Units by id (one deleted meanwhile is missing), in one query. */
  unitsById(ids: string[]): Map<string, Unit> {
    return this.units.unitsById(ids)
  }

  /** The leaves of each of these documents (its sections, or itself), in one query. */
  leavesOfAll(ids: string[]): Map<string, Unit[]> {
    return this.units.leavesOfAll(ids)
  }

  /**
   * A run takes these units: each moves to `onboarding` (a unit in a state that may not, a failed
   * one, is refused with a 409 and nothing moves) and their parents roll up, in one transaction.
   */
  take(units: Unit[], now: number): void {
    for (const u of units) assertMove(stateOf(u), 'onboarding', u.id)
    const parents = units.flatMap((u) => (u.parentId ? [u.parentId] : []))
    transaction(this.d.db, () => {
      this.units.take(
        units.map((u) => u.id),
        now,
      )
      this.units.rollUpParents(parents, now)
    })
  }

  /**
   * Settles a batch's group: its onboarded units `ready`, its failed ones `failed` (each only while
   * it holds the text the batch read and may still move there), their parents rolled up, and the
   * whole documents that became ready or failed told (`document.ready`, `document.failed`), at once.
   */
  settle(group: SettledUnits, now: number): void {
    this.units.settleGroup(group, now, this.d.events)
  }

  /** Puts the units a stopped run left `onboarding` back to waiting (`uploaded` or `extracted`). */
  release(corpusId: string, now: number): void {
    this.units.release(corpusId, now)
  }

  /** Counts of a base's files by status (`pending`: waiting or in a run now). */
  fileCounts(corpusId: string): { ready: number; failed: number; pending: number } {
    return this.units.parentCounts(corpusId)
  }
}
