import type { Store } from '../../platform/db/store'
import type { NewEvent } from '../../platform/events/events'
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
 * (corpora.lifecycle.ts), each command a unit; onboarding keeps only its runs (jobs) and asks here
 * for the rest.
 */
export class DocumentRuns {
  private readonly units: UnitsRepo

  constructor(private readonly d: { store: Store; events: Outbox }) {
    this.units = new UnitsRepo(d.store)
  }

  /**
   * Units a run should onboard, oldest first: the leaves still waiting (new or changed since the last
   * run); with `force` the ready ones too; `extracted` leaves out those whose text is still being
   * extracted (an automatic run takes them in the run after their sync).
   */
  waiting(corpusId: string, opts: { force?: boolean; extracted?: boolean } = {}): Promise<Unit[]> {
    return this.units.units(corpusId, opts.force ?? false, opts.extracted ?? false)
  }

  /** Whether a base has extracted units waiting for a run (not in one now). */
  hasWaiting(corpusId: string): Promise<boolean> {
    return this.units.hasWaiting(corpusId)
  }

  /** Number of parent documents (files) of a base. */
  countFiles(corpusId: string): Promise<number> {
    return this.units.documentCount(corpusId)
  }

  /** One unit by id, or null when it was deleted meanwhile. */
  unit(id: string): Promise<Unit | null> {
    return this.units.unit(id)
  }

  /** Units by id (one deleted meanwhile is missing). */
  unitsById(ids: string[]): Promise<Map<string, Unit>> {
    return this.units.unitsById(ids)
  }

  /** The leaves of each of these documents (its sections, or itself). */
  leavesOfAll(ids: string[]): Promise<Map<string, Unit[]>> {
    return this.units.leavesOfAll(ids)
  }

  /**
   * A run takes these units: each moves to `onboarding` and their parents roll up, in one unit. A
   * unit in a state that may not (a failed one, as read or as changed since) is refused with a 409
   * and nothing moves; one deleted since is left out.
   */
  async take(units: Unit[], now: number): Promise<void> {
    for (const u of units) assertMove(stateOf(u), 'onboarding', u.id)
    const parents = units.flatMap((u) => (u.parentId ? [u.parentId] : []))
    await this.d.store.unit(async () => {
      await this.units.holdMoves(units[0]?.corpusId)
      const ids = units.map((u) => u.id)
      const moved = new Set(await this.units.take(ids, now))
      const left = ids.filter((id) => !moved.has(id))
      // The rows the guarded update left are either gone or moved meanwhile to a state that may not.
      for (const u of (await this.units.unitsById(left)).values()) assertMove(stateOf(u), 'onboarding', u.id)
      await this.units.rollUpParents(parents, now)
    })
  }

  /**
   * Settles a batch's group: its onboarded units `ready`, its failed ones `failed` (each only while
   * it holds the text the batch read and may still move there), their parents rolled up, and the
   * whole documents that became ready or failed told (`document.ready`, `document.failed`), in one unit.
   */
  async settle(g: SettledUnits, now: number): Promise<void> {
    // Told together at the end of the unit, in the order they were found (one insert for them all).
    const told: NewEvent<'document.ready' | 'document.failed'>[] = []
    const tell = (d: Pick<Unit, 'workspaceId' | 'corpusId' | 'id'>, error: string | null) => {
      const ids = { corpusId: d.corpusId, documentId: d.id }
      told.push(
        error === null
          ? { type: 'document.ready', workspaceId: d.workspaceId, payload: ids }
          : { type: 'document.failed', workspaceId: d.workspaceId, payload: { ...ids, error } },
      )
    }
    await this.d.store.unit(async () => {
      await this.units.holdMoves((g.ready[0] ?? g.failed[0]?.unit)?.corpusId)
      const ready = await this.units.settleReady(g.ready, now)
      for (const r of g.ready) if (ready.has(r.id) && !r.parentId) tell(r, null)
      for (const f of g.failed) {
        const set = await this.units.settleLeaf(f.unit, 'failed', f.error, now)
        if (set && !f.unit.parentId) tell(f.unit, f.error)
      }
      const place = new Map([...g.ready, ...g.failed.map((f) => f.unit)].map((u) => [u.parentId, u]))
      for (const p of await this.units.rollUpParents(g.parents, now)) {
        const unit = place.get(p.id)
        if (!unit || (p.status !== 'ready' && p.status !== 'failed')) continue
        const doc = { workspaceId: unit.workspaceId, corpusId: unit.corpusId, id: p.id }
        tell(doc, p.status === 'ready' ? null : 'Every section of the document failed to onboard.')
      }
      await this.d.events.publishAll(told)
    })
  }

  /** Puts the units a stopped run left `onboarding` back to waiting (`uploaded` or `extracted`). */
  release(corpusId: string, now: number): Promise<void> {
    return this.d.store.unit(async () => {
      await this.units.holdMoves(corpusId)
      await this.units.release(corpusId, now)
    })
  }

  /** Counts of a base's files by status (`pending`: waiting or in a run now). */
  fileCounts(corpusId: string): Promise<{ ready: number; failed: number; pending: number }> {
    return this.units.parentCounts(corpusId)
  }
}
