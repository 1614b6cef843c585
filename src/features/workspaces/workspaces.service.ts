import type { Clock } from '../../platform/clock/clock'
import { newId, type Random } from '../../platform/crypto/random'
import type { Db } from '../../platform/db/db'
import type { Store } from '../../platform/db/store'
import { StoreMemo } from '../../platform/db/store-memo'
import { type WorkspaceRow, WorkspacesRepo } from './workspaces.repo'
import { WorkspacesTwins } from './workspaces.twins'

export type { WorkspaceRow }

/** Workspaces (tenants): creation at sign-up, lookup, rename, plan. */
export class WorkspacesService {
  private readonly repo: WorkspacesRepo
  /** Statuses by workspace id, reused only until the next commit to the database (any process's). */
  private readonly statuses: StoreMemo<WorkspaceRow['status']>
  private twinsBuilt: WorkspacesTwins | null = null

  constructor(
    store: Store,
    /** The SQLite connection of the synchronous twins below, until their callers move (issue 39). */
    private readonly db: Db | null,
    private readonly clock: Clock,
    private readonly random: Random,
  ) {
    const repo = new WorkspacesRepo(store)
    this.repo = repo
    this.statuses = new StoreMemo(store, (id) => repo.status(id))
  }

  /** The twins' SQL, built when first used (a store on PostgreSQL has no SQLite connection). */
  private get twins(): WorkspacesTwins {
    if (!this.db) throw new Error('The synchronous twins of workspaces need the SQLite connection.')
    this.twinsBuilt ??= new WorkspacesTwins(this.db)
    return this.twinsBuilt
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

  /** The workspace, or undefined. */
  get(id: string): Promise<WorkspaceRow | undefined> {
    return this.repo.find(id)
  }

  // Synchronous twin for plans.service.ts, until plans moves to the store (issue 39).
  getSync(id: string): WorkspaceRow | undefined {
    return this.twins.find(id)
  }

  /**
   * The workspace's status (`active` or `suspended`), or undefined when there is none: read by every
   * authenticated request (keys and sessions), so it is kept until the next commit, as they keep
   * theirs; inside a unit the memo reads the table, so the unit's own writes are seen.
   */
  status(id: string): Promise<WorkspaceRow['status'] | undefined> {
    return this.statuses.get(id)
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
