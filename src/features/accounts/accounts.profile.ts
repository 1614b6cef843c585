import type { Static } from '@sinclair/typebox'
import { transaction } from '../../platform/db/transaction'
import { fail } from '../../platform/errors/errors'
import { findUser, updateUser } from './accounts.repo'
import { requireName, type UserResp } from './accounts.schemas'
import type { AccountsDeps } from './accounts.types'

type Profile = Static<typeof UserResp>

/** The caller's own profile and names: display name, workspace name, the first-run setup. */
export class Profiles {
  constructor(private readonly d: Pick<AccountsDeps, 'db' | 'clock' | 'workspaces'>) {}

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
  renameWorkspace(workspaceId: string, workspaceName: string): void {
    this.d.workspaces.rename(workspaceId, requireName(workspaceName, 'workspace_name'))
  }

  /** `POST /auth/setup`: renames the caller's workspace and display name. */
  setup(userId: string, workspaceName: string, name: string): Profile {
    const ws = requireName(workspaceName, 'workspace_name')
    const display = requireName(name, 'name')
    const user = findUser(this.d.db, userId)
    if (!user) throw fail('unauthorized')
    transaction(this.d.db, () => {
      this.d.workspaces.rename(user.workspaceId, ws)
      updateUser(this.d.db, user.id, { name: display }, this.d.clock.now().getTime())
    })
    return this.profile(userId)
  }
}
