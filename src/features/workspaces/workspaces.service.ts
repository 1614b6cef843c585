import type { Clock } from '../../platform/clock/clock'
import { newId, type Random } from '../../platform/crypto/random'
import type { Db } from '../../platform/db/db'
import {
  anyWorkspace,
  findWorkspace,
  insertWorkspace,
  renameWorkspace,
  setWorkspacePlan,
  type WorkspaceRow,
} from './workspaces.repo'

export type { WorkspaceRow }

/** Workspaces (tenants): creation at sign-up, lookup, rename, plan. */
export class WorkspacesService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly random: Random,
  ) {}

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
