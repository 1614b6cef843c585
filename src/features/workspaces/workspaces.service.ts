import type { Clock } from '../../platform/clock/clock'
import { newId, type Random } from '../../platform/crypto/random'
import { CommitMemo, commitWatch } from '../../platform/db/commit-watch'
import type { Db } from '../../platform/db/db'
import {
  anyWorkspace,
  findWorkspace,
  insertWorkspace,
  listWorkspaces,
  renameWorkspace,
  setWorkspacePlan,
  type WorkspaceRow,
  workspaceStatusLookup,
} from './workspaces.repo'

export type { WorkspaceRow }

/** Workspaces (tenants): creation at sign-up, lookup, rename, plan. */
export class WorkspacesService {
  /** Statuses by workspace id, reused only until the next commit to the database (any process's). */
  private readonly statuses: CommitMemo<WorkspaceRow['status']>
  private readonly readStatus: (id: string) => WorkspaceRow['status'] | undefined

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly random: Random,
  ) {
    this.readStatus = workspaceStatusLookup(db)
    this.statuses = new CommitMemo(commitWatch(db.$client), this.readStatus)
  }

  /** Creates an active workspace on `plan`; call inside the sign-up transaction. */
  create(name: string, plan: string): WorkspaceRow {
    const at = this.clock.now().getTime()
    const row: WorkspaceRow = {
      id: newId(this.random, 'ws'),
      name,
      plan,
      status: 'active',
      createdAt: at,
      updatedAt: at,
    }
    insertWorkspace(this.db, row)
    return row
  }

  /** The workspace, or undefined. */
  get(id: string): WorkspaceRow | undefined {
    return findWorkspace(this.db, id)
  }

  /**
   * The workspace's status (`active` or `suspended`), or undefined when there is none: read by every
   * authenticated request (keys and sessions), so it is kept until the next commit, as they keep theirs.
   */
  status(id: string): WorkspaceRow['status'] | undefined {
    // Inside a transaction its own uncommitted writes must be seen: read the table.
    return this.db.$client.inTransaction ? this.readStatus(id) : this.statuses.get(id)
  }

  /** Every workspace's id and name, oldest first (`engram mcp` picks the one to serve). */
  list(): Pick<WorkspaceRow, 'id' | 'name'>[] {
    return listWorkspaces(this.db)
  }

  /** Whether the install has any workspace at all. */
  any(): boolean {
    return anyWorkspace(this.db)
  }

  /** Renames a workspace. */
  rename(id: string, name: string): void {
    renameWorkspace(this.db, id, name, this.clock.now().getTime())
  }

  /** Moves a workspace to another plan (the plans feature checks the plan exists). */
  setPlan(id: string, plan: string): void {
    setWorkspacePlan(this.db, id, plan, this.clock.now().getTime())
  }
}
