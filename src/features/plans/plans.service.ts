import type { Actor } from '../../platform/auth/principal'
import type { Db } from '../../platform/db/db'
import { transaction } from '../../platform/db/transaction'
import { fail } from '../../platform/errors/errors'
import type { Outbox } from '../../platform/events/outbox'
import type { WorkspacesService } from '../workspaces/workspaces.service'
import type { CapName, Caps, PlanDef } from './plans.schemas'

/** Why a workspace could not be moved to a plan. */
export type SetPlanRefusal = 'unknown_plan' | 'unknown_workspace'

/**
 * The plans this server offers (defaults or the operator's file, fixed at start-up) and which one a
 * workspace is on. Other features ask `capsOf` before they let a workspace grow.
 */
export class PlansService {
  private readonly byId: Map<string, PlanDef>

  constructor(
    private readonly d: { db: Db; events: Outbox; workspaces: WorkspacesService },
    private readonly plans: PlanDef[],
    private readonly defaultPlan: string,
  ) {
    this.byId = new Map(plans.map((p) => [p.id, p]))
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
   * Moves a workspace to a defined plan and records who did it (`plan.changed`, in the audit log),
   * in one transaction. Answers the plan it was on, or why it refused (then nothing is written).
   */
  setPlan(workspaceId: string, planId: string, actor: Actor): { from: string } | { refused: SetPlanRefusal } {
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
          details: { from: ws.plan, to: planId, via: 'engram plan set' },
        },
      })
    })
    return { from: ws.plan }
  }
}
