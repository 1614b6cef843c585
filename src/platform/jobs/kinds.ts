// What the scheduler knows of each job kind: its handler, its settle hook, its lane and its time
// budget; and from the lanes, how free slots may be filled (the claim policy).
import type { ClaimPolicy } from './fair-claim'
import type { JobBudget, JobHandler, KindOptions, SettledHook } from './handler'

/** The registered kinds of one scheduler. */
export class JobKinds {
  private readonly handlers = new Map<string, JobHandler>()
  private readonly hooks = new Map<string, SettledHook>()
  private readonly bulk = new Set<string>()
  private readonly budgets = new Map<string, JobBudget>()

  /** Registers a kind; registering it again replaces what was said of it. */
  register(kind: string, handler: JobHandler, o: KindOptions): void {
    this.handlers.set(kind, handler)
    if (o.onSettled) this.hooks.set(kind, o.onSettled)
    else this.hooks.delete(kind)
    if (o.lane === 'bulk') this.bulk.add(kind)
    else this.bulk.delete(kind)
    if (o.budget) this.budgets.set(kind, o.budget)
    else this.budgets.delete(kind)
  }

  /** Every kind with a handler: what the scheduler claims. */
  get names(): string[] {
    return [...this.handlers.keys()]
  }

  handler(kind: string): JobHandler | undefined {
    return this.handlers.get(kind)
  }

  hook(kind: string): SettledHook | undefined {
    return this.hooks.get(kind)
  }

  budget(kind: string): JobBudget | undefined {
    return this.budgets.get(kind)
  }

  /**
   * How `workers` slots are filled: bulk kinds never take the `interactiveSlots` kept (at most
   * workers - 1, so bulk work can always run), and one workspace holds at most `workspaceSlots`
   * (1..workers).
   */
  policy(workers: number, workspaceSlots: number, interactiveSlots: number): ClaimPolicy {
    const kept = Math.min(Math.max(0, interactiveSlots), workers - 1)
    return {
      bulk: [...this.bulk],
      bulkSlots: workers - kept,
      perWorkspace: Math.min(Math.max(1, workspaceSlots), workers),
    }
  }
}
