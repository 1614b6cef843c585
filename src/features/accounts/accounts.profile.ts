import type { Static } from '@sinclair/typebox'
import type { Actor } from '../../platform/auth/principal'
import { transaction } from '../../platform/db/transaction'
import { fail } from '../../platform/errors/errors'
import { findUser, updateUser } from './accounts.repo'
import { requireName, type UserResp } from './accounts.schemas'
import type { AccountsDeps } from './accounts.types'

type Profile = Static<typeof UserResp>

/** The caller's own profile and names: display name, workspace name, the first-run setup. */
export class Profiles {
  constructor(private readonly d: Pick<AccountsDeps, 'db' | 'clock' | 'workspaces' | 'events'>) {}

  /** UserResp of a user id (the caller's own). */
  profile(userId: string): Profile {
    const user = findUser(this.d.db, userId)
    const ws = user && this.d.workspaces.get(user.workspaceId)
    if (!user || !ws) throw fail('unauthorized')
    return {
      id: user.id,
      email: user.email,
      name: user.name,
      workspace_id: ws.id,
      workspace_name: ws.name,
      role: user.role,
      email_verified: user.emailVerifiedAt !== null,
    }
  }

  /** `PATCH /auth/me`: the caller's own display name (the workspace name is an admin's, via setup). */
  rename(userId: string, name: string): Profile {
    const display = requireName(name, 'name')
    if (!findUser(this.d.db, userId)) throw fail('unauthorized')
    updateUser(this.d.db, userId, { name: display }, this.d.clock.now().getTime())
    return this.profile(userId)
  }

  /** The name of a workspace (the caller's own; it exists while its credential works). */
  workspaceName(workspaceId: string): string {
    const ws = this.d.workspaces.get(workspaceId)
    if (!ws) throw fail('unauthorized')
    return ws.name
  }

  /** `POST /auth/setup` with an API key: renames the workspace only (a key has no display name). */
  renameWorkspace(workspaceId: string, workspaceName: string, actor: Actor): void {
    const name = requireName(workspaceName, 'workspace_name')
    transaction(this.d.db, () => this.renamed(workspaceId, name, actor))
  }

  /** `POST /auth/setup`: renames the caller's workspace and display name. */
  setup(userId: string, workspaceName: string, name: string, actor: Actor): Profile {
    const ws = requireName(workspaceName, 'workspace_name')
    const display = requireName(name, 'name')
    const user = findUser(this.d.db, userId)
    if (!user) throw fail('unauthorized')
    transaction(this.d.db, () => {
      this.renamed(user.workspaceId, ws, actor)
      updateUser(this.d.db, user.id, { name: display }, this.d.clock.now().getTime())
    })
    return this.profile(userId)
  }

  /** Renames a workspace and tells it for the audit log (`workspace.renamed`: from, to). Call inside a transaction. */
  private renamed(workspaceId: string, name: string, actor: Actor): void {
    const from = this.workspaceName(workspaceId)
    this.d.workspaces.rename(workspaceId, name)
    if (from === name) return
    this.d.events.emit(this.d.db, {
      type: 'workspace.renamed',
      workspaceId,
      payload: { actor, target: { type: 'workspace', id: workspaceId }, details: { from, to: name } },
    })
  }
}
