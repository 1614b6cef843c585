import type { Clock } from '../../platform/clock/clock'
import { newId, type Random } from '../../platform/crypto/random'
import type { Store } from '../../platform/db/store'
import { StoreMemo } from '../../platform/db/store-memo'
import { type WorkspaceRow, WorkspacesRepo } from './workspaces.repo'

export type { WorkspaceRow }

/** Workspaces (tenants): creation at sign-up, lookup, rename, plan. */
export class WorkspacesService {
  private readonly repo: WorkspacesRepo
  /**
   * Rows by workspace id, reused only until the next commit to the database (any process's): every
   * authenticated request reads its workspace's status, and every question its plan.
   */
  private readonly rows: StoreMemo<WorkspaceRow>

  constructor(
    store: Store,
    private readonly clock: Clock,
    private readonly random: Random,
  ) {
    const repo = new WorkspacesRepo(store)
    this.repo = repo
    this.rows = new StoreMemo(store, (id) => repo.find(id))
  }

  /** Creates an active workspace on `plan`; call inside the sign-up's unit. */
  async create(name: string, plan: string): Promise<WorkspaceRow> {
    const at = this.clock.now().getTime()
    const row: WorkspaceRow = {
      id: newId(this.random, 'ws'),
      name,
      plan,
      status: 'active',
      createdAt: at,
      updatedAt: at,
    }
    await this.repo.insert(row)
    return row
  }

  /**
   * The workspace, or undefined; kept until the next commit, and read from the table inside a unit
   * (so a unit sees its own writes). The row is shared: never change it.
   */
  get(id: string): Promise<WorkspaceRow | undefined> {
    return this.rows.get(id)
  }

  /** The workspace's status (`active` or `suspended`), or undefined when there is none. */
  async status(id: string): Promise<WorkspaceRow['status'] | undefined> {
    return (await this.rows.get(id))?.status
  }

  /** Every workspace's id and name, oldest first (`engram mcp` picks the one to serve). */
  list(): Promise<Pick<WorkspaceRow, 'id' | 'name'>[]> {
    return this.repo.list()
  }

  /** Whether the install has any workspace at all. */
  any(): Promise<boolean> {
    return this.repo.any()
  }

  /** Renames a workspace; call inside a unit. */
  async rename(id: string, name: string): Promise<void> {
    await this.repo.rename(id, name, this.clock.now().getTime())
  }

  /** Moves a workspace to another plan (the plans feature checks the plan exists); call inside a unit. */
  async setPlan(id: string, plan: string): Promise<void> {
    await this.repo.setPlan(id, plan, this.clock.now().getTime())
  }
}
