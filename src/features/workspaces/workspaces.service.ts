import type { SQLWrapper } from 'drizzle-orm'
import type { Clock } from '../../platform/clock/clock'
import { newId, type Random } from '../../platform/crypto/random'
import type { Store } from '../../platform/db/store'
import { StoreMemo } from '../../platform/db/store-memo'
import {
  type WorkspaceAccess,
  type WorkspaceAccessColumns,
  type WorkspaceRow,
  WorkspacesRepo,
} from './workspaces.repo'

export type { WorkspaceAccess, WorkspaceAccessColumns, WorkspaceRow }

/** Workspaces whose seen security revision is kept at most; beyond it they are forgotten. */
const MAX_SEEN = 10_000

/** Workspaces (tenants): creation at sign-up, lookup, rename, plan. */
export class WorkspacesService {
  private readonly repo: WorkspacesRepo
  /**
   * Rows by workspace id, reused only until the next commit to the database (any process's): every
   * authenticated request reads its workspace's status, and every question its plan.
   */
  private readonly rows: StoreMemo<WorkspaceRow>
  /**
   * The highest security revision of each workspace this process's auth reads have seen, forgotten
   * whenever the store's commit version moves (see `securityRevSeen`).
   */
  private readonly seenRevs = new Map<string, number>()
  private seenAt = -1

  constructor(
    private readonly store: Store,
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
      securityRev: 0,
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

  /**
   * The workspace's status and security revision as columns of a credential's own read (keys,
   * sessions): the request's auth read, one statement (docs/scale-out.md). Use only while building a
   * statement on the store.
   */
  accessColumns(workspaceId: SQLWrapper): WorkspaceAccessColumns {
    return this.repo.accessColumns(workspaceId)
  }

  /**
   * Moves the workspace's security revision on; call inside the unit that changes a row deciding
   * access to it (SSO enforcement, the IP allowlist, the KMS key), so that every replica's memo of
   * such a row is read again on the next request that reads the new revision.
   */
  async bumpSecurityRev(id: string): Promise<void> {
    await this.repo.bumpSecurityRev(id)
  }

  /** Records the security revision a request's auth read found (the highest seen is kept). */
  noteSecurityRev(id: string, rev: number): void {
    this.seenSince()
    if (this.seenRevs.size >= MAX_SEEN) this.seenRevs.clear()
    if ((this.seenRevs.get(id) ?? -1) < rev) this.seenRevs.set(id, rev)
  }

  /**
   * The highest security revision of the workspace an auth read found since the store's last commit
   * version (so within the request that read it, and never past a commit this process was told of);
   * undefined otherwise. For code that acts for a request but is not handed its principal (the KMS
   * keyring under the object store): undefined makes its memo read through.
   */
  securityRevSeen(id: string): number | undefined {
    this.seenSince()
    return this.seenRevs.get(id)
  }

  private seenSince(): void {
    const version = this.store.commits.version()
    if (version === this.seenAt) return
    this.seenRevs.clear()
    this.seenAt = version
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
