import type { Actor } from '../../platform/auth/principal'
import { holdInUnit } from '../../platform/db/hold'
import type { Store } from '../../platform/db/store'
import { fail } from '../../platform/errors/errors'
import type { Outbox } from '../../platform/events/outbox'
import type { WorkspaceRow, WorkspacesService } from '../workspaces/workspaces.service'
import { PlansRepo } from './plans.repo'
import type { CapName, Caps, PlanDef } from './plans.schemas'

/** One question taken from a workspace's month; hand it back to `releaseQuery` if it goes unanswered. */
export interface QueryTicket {
  workspaceId: string
  /** The calendar month (UTC, YYYY-MM) it was taken from. */
  month: string
}

/** The calendar month, UTC, of a time in milliseconds (YYYY-MM). */
export function monthOf(atMs: number): string {
  return new Date(atMs).toISOString().slice(0, 7)
}

/** Why a workspace could not be moved to a plan. */
export type SetPlanRefusal = 'unknown_plan' | 'unknown_workspace'

/** What the plans feature is built from. */
export interface PlansDeps {
  /** The query counter and plan changes are units on it. */
  store: Store
  /** A plan change is told as `plan.changed` (the audit log subscribes). */
  events: Outbox
  workspaces: WorkspacesService
}

/**
 * The plans this server offers (defaults or the operator's file, fixed at start-up) and which one a
 * workspace is on. Other features ask `capsOf` before they let a workspace grow.
 */
export class PlansService {
  private readonly byId: Map<string, PlanDef>
  private readonly repo: PlansRepo

  constructor(
    private readonly d: PlansDeps,
    private readonly plans: PlanDef[],
    private readonly defaultPlan: string,
  ) {
    this.byId = new Map(plans.map((p) => [p.id, p]))
    this.repo = new PlansRepo(d.store)
  }

  /** Every plan, in the order they are defined. */
  plansOf(): PlanDef[] {
    return this.plans
  }

  /** A plan by id, or undefined. */
  find(id: string): PlanDef | undefined {
    return this.byId.get(id)
  }

  /**
   * The plan a workspace is on. A workspace whose plan the operator has since removed from the file
   * is held to the default plan's terms (never to no caps at all) until it is moved with
   * `engram plan set`; the id it carries is kept so the operator sees what happened.
   */
  async planOf(workspaceId: string): Promise<PlanDef | undefined> {
    return this.planOfRow(await this.d.workspaces.get(workspaceId))
  }

  /** The caps a workspace is held to; undefined for an unknown workspace. */
  async capsOf(workspaceId: string): Promise<Caps | undefined> {
    return (await this.planOf(workspaceId))?.caps
  }

  /**
   * Holds a workspace's cap in the calling unit until it ends (`holdInUnit`): call it before counting
   * what the cap limits, then `ensureRoom` and the write, so two units cannot both count below the
   * cap and both write (on PostgreSQL; on SQLite units take turns anyway). Every writer of what one
   * cap counts holds the same key.
   */
  holdCap(workspaceId: string, cap: CapName): Promise<void> {
    return holdInUnit(this.d.store, `cap:${cap}:${workspaceId}`)
  }

  /**
   * Refuses with 403 `plan_limit_reached` (details `{cap, limit, used}`) when adding `adding` to
   * `used` would pass the workspace's cap; an unlimited cap (null) never refuses, and neither does
   * adding nothing (a replacement that does not grow). Call it inside the unit that writes, with
   * `used` counted in that unit after `holdCap` (plans.hold.ts), so that a refused request writes
   * nothing and two requests cannot both take the last unit.
   */
  async ensureRoom(workspaceId: string, cap: CapName, used: number, adding = 1): Promise<void> {
    refuseBeyond(cap, (await this.capsOf(workspaceId))?.[cap], used, adding)
  }

  /**
   * Takes one question from the workspace's `queries_per_month` for the calendar month (UTC) of
   * `atMs`, or refuses with 403 `plan_limit_reached` when the month's are all taken. One conditional
   * upsert (PlansRepo.take), so concurrent questions cannot overshoot the cap on either engine. An
   * unlimited plan still counts, for /admin/billing. Call it before any work on the question, and
   * `releaseQuery` when the question fails before it is answered.
   */
  async takeQuery(workspaceId: string, atMs: number): Promise<QueryTicket> {
    const month = monthOf(atMs)
    const limit = (await this.capsOf(workspaceId))?.queries_per_month ?? null
    if ((limit === null || limit > 0) && (await this.repo.take(workspaceId, month, limit)))
      return { workspaceId, month }
    // Refused: a release since the take may show fewer than the cap; the refusal says the cap.
    throw queriesRefusal(limit, Math.max(await this.repo.taken(workspaceId, month), limit ?? 0), month)
  }

  /** Gives back a question taken by `takeQuery` that was not answered (refused or failed). */
  async releaseQuery(ticket: QueryTicket): Promise<void> {
    await this.repo.release(ticket.workspaceId, ticket.month)
  }

  /** Questions the workspace has taken in the calendar month (UTC) of `atMs`: what the cap counts. */
  queriesUsed(workspaceId: string, atMs: number): Promise<number> {
    return this.repo.taken(workspaceId, monthOf(atMs))
  }

  /**
   * Moves a workspace to a defined plan and records who did it (`plan.changed`, in the audit log),
   * in one unit. Answers the plan it was on, or why it refused (then nothing is written). `via` says
   * what moved it (`engram plan set`, `billing`); inside a caller's unit it joins it.
   */
  async setPlan(
    workspaceId: string,
    planId: string,
    actor: Actor,
    via = 'engram plan set',
  ): Promise<{ from: string } | { refused: SetPlanRefusal }> {
    if (!this.byId.has(planId)) return { refused: 'unknown_plan' }
    return this.d.store.unit(async () => {
      const ws = await this.d.workspaces.get(workspaceId)
      if (!ws) return { refused: 'unknown_workspace' as const }
      await this.d.workspaces.setPlan(workspaceId, planId)
      await this.d.events.publish({
        type: 'plan.changed',
        workspaceId,
        payload: {
          actor,
          target: { type: 'workspace', id: workspaceId },
          details: { from: ws.plan, to: planId, via },
        },
      })
      return { from: ws.plan }
    })
  }

  private planOfRow(ws: Pick<WorkspaceRow, 'plan'> | undefined): PlanDef | undefined {
    if (!ws) return undefined
    const plan = this.byId.get(ws.plan)
    if (plan) return plan
    const fallback = this.byId.get(this.defaultPlan) as PlanDef
    return {
      ...fallback,
      id: ws.plan,
      name: `${ws.plan} (not defined; ${fallback.name} terms)`,
      public: false,
    }
  }
}

/** Throws 403 `plan_limit_reached` when adding `adding` to `used` passes `limit` (null: unlimited). */
function refuseBeyond(cap: CapName, limit: number | null | undefined, used: number, adding: number): void {
  if (limit === null || limit === undefined || adding <= 0) return
  if (used + adding <= limit) return
  const what = cap.replace(/_/g, ' ')
  throw fail(
    'plan_limit_reached',
    `The workspace's plan allows ${limit} ${what}; it uses ${used}, and this would add ${adding}. An admin can move it to a larger plan.`,
    { cap, limit, used },
  )
}

/** The refusal of a question past the month's `queries_per_month`. */
function queriesRefusal(limit: number | null, used: number, month: string) {
  return fail(
    'plan_limit_reached',
    `The workspace's plan allows ${limit} questions a month and ${used} have been asked this month (${month}, UTC); the allowance renews on the first of next month. An admin can move the workspace to a larger plan.`,
    { cap: 'queries_per_month', limit, used },
  )
}
