import type { Actor } from '../../platform/auth/principal'
import type { Db } from '../../platform/db/db'
import { transaction } from '../../platform/db/transaction'
import { fail } from '../../platform/errors/errors'
import type { Outbox } from '../../platform/events/outbox'
import type { WorkspacesService } from '../workspaces/workspaces.service'
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

/**
 * The plans this server offers (defaults or the operator's file, fixed at start-up) and which one a
 * workspace is on. Other features ask `capsOf` before they let a workspace grow.
 */
export class PlansService {
  private readonly byId: Map<string, PlanDef>
  private readonly repo: PlansRepo

  constructor(
    private readonly d: { db: Db; events: Outbox; workspaces: WorkspacesService },
    private readonly plans: PlanDef[],
    private readonly defaultPlan: string,
  ) {
    this.byId = new Map(plans.map((p) => [p.id, p]))
    this.repo = new PlansRepo(d.db)
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
  planOf(workspaceId: string): PlanDef | undefined {
    const ws = this.d.workspaces.get(workspaceId)
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

  /** The caps a workspace is held to; undefined for an unknown workspace. */
  capsOf(workspaceId: string): Caps | undefined {
    return this.planOf(workspaceId)?.caps
  }

  /**
   * Refuses with 403 `plan_limit_reached` (details `{cap, limit, used}`) when adding `adding` to
   * `used` would pass the workspace's cap; an unlimited cap (null) never refuses, and neither does
   * adding nothing (a replacement that does not grow). Call it inside the transaction that writes,
   * with `used` counted in that transaction, so that two requests cannot both take the last unit
   * and a refused request writes nothing.
   */
  ensureRoom(workspaceId: string, cap: CapName, used: number, adding = 1): void {
    const limit = this.capsOf(workspaceId)?.[cap]
    if (limit === null || limit === undefined || adding <= 0) return
    if (used + adding <= limit) return
    const what = cap.replace(/_/g, ' ')
    throw fail(
      'plan_limit_reached',
      `The workspace's plan allows ${limit} ${what}; it uses ${used}, and this would add ${adding}. An admin can move it to a larger plan.`,
      { cap, limit, used },
    )
  }

  /**
   * Takes one question from the workspace's `queries_per_month` for the calendar month (UTC) of
   * `atMs`, or refuses with 403 `plan_limit_reached` when the month's are all taken. One conditional
   * statement (PlansRepo.take), so concurrent questions cannot overshoot the cap. An unlimited plan
   * still counts, for /admin/billing. Call it before any work on the question, and `releaseQuery`
   * when the question fails before it is answered.
   */
  takeQuery(workspaceId: string, atMs: number): QueryTicket {
    const month = monthOf(atMs)
    const limit = this.capsOf(workspaceId)?.queries_per_month ?? null
    if ((limit === null || limit > 0) && this.repo.take(workspaceId, month, limit))
      return { workspaceId, month }
    // Refused: bun:sqlite is synchronous, so nothing was released between the take and this read.
    const used = Math.max(this.repo.taken(workspaceId, month), limit ?? 0)
    throw fail(
      'plan_limit_reached',
      `The workspace's plan allows ${limit} questions a month and ${used} have been asked this month (${month}, UTC); the allowance renews on the first of next month. An admin can move the workspace to a larger plan.`,
      { cap: 'queries_per_month', limit, used },
    )
  }

  /** Gives back a question taken by `takeQuery` that was not answered (refused or failed). */
  releaseQuery(ticket: QueryTicket): void {
    this.repo.release(ticket.workspaceId, ticket.month)
  }

  /** Questions the workspace has taken in the calendar month (UTC) of `atMs`: what the cap counts. */
  queriesUsed(workspaceId: string, atMs: number): number {
    return this.repo.taken(workspaceId, monthOf(atMs))
  }

  /**
   * Moves a workspace to a defined plan and records who did it (`plan.changed`, in the audit log),
   * in one transaction. Answers the plan it was on, or why it refused (then nothing is written).
   * `via` says what moved it (`engram plan set`, `billing`); inside a caller's transaction it joins it.
   */
  setPlan(
    workspaceId: string,
    planId: string,
    actor: Actor,
    via = 'engram plan set',
  ): { from: string } | { refused: SetPlanRefusal } {
    if (!this.byId.has(planId)) return { refused: 'unknown_plan' }
    const ws = this.d.workspaces.get(workspaceId)
    if (!ws) return { refused: 'unknown_workspace' }
    transaction(this.d.db, () => {
      this.d.workspaces.setPlan(workspaceId, planId)
      this.d.events.emit(this.d.db, {
        type: 'plan.changed',
        workspaceId,
        payload: {
          actor,
          target: { type: 'workspace', id: workspaceId },
          details: { from: ws.plan, to: planId, via },
        },
      })
    })
    return { from: ws.plan }
  }
}
