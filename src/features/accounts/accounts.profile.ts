import type { Static } from '@sinclair/typebox'
import type { Actor } from '../../platform/auth/principal'
import { fail } from '../../platform/errors/errors'
import { requireName, type UserResp } from './accounts.schemas'
import type { AccountsDeps } from './accounts.types'

type Profile = Static<typeof UserResp>

/** The caller's own profile and names: display name, workspace name, the first-run setup. */
export class Profiles {
  constructor(private readonly d: Pick<AccountsDeps, 'store' | 'repo' | 'clock' | 'workspaces' | 'events'>) {}

  /** UserResp of a user id (the caller's own). */
  async profile(userId: string): Promise<Profile> {
    const user = await this.d.repo.user(userId)
    const ws = user && (await this.d.workspaces.get(user.workspaceId))
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
  async rename(userId: string, name: string): Promise<Profile> {
    const display = requireName(name, 'name')
    if (!(await this.d.repo.user(userId))) throw fail('unauthorized')
    const at = this.d.clock.now().getTime()
    await this.d.store.unit(() => this.d.repo.updateUser(userId, { name: display }, at))
    return this.profile(userId)
  }

  /** The name of a workspace (the caller's own; it exists while its credential works). */
  async workspaceName(workspaceId: string): Promise<string> {
    const ws = await this.d.workspaces.get(workspaceId)
    if (!ws) throw fail('unauthorized')
    return ws.name
  }

  /** `POST /auth/setup` with an API key: renames the workspace only (a key has no display name). */
  async renameWorkspace(workspaceId: string, workspaceName: string, actor: Actor): Promise<void> {
    const name = requireName(workspaceName, 'workspace_name')
    await this.d.store.unit(() => this.renamed(workspaceId, name, actor))
  }

  /** `POST /auth/setup`: renames the caller's workspace and display name. */
  async setup(userId: string, workspaceName: string, name: string, actor: Actor): Promise<Profile> {
    const ws = requireName(workspaceName, 'workspace_name')
    const display = requireName(name, 'name')
    const user = await this.d.repo.user(userId)
    if (!user) throw fail('unauthorized')
    const at = this.d.clock.now().getTime()
    await this.d.store.unit(async () => {
      await this.renamed(user.workspaceId, ws, actor)
      await this.d.repo.updateUser(user.id, { name: display }, at)
    })
    return this.profile(userId)
  }

  /** Renames a workspace and tells it for the audit log (`workspace.renamed`: from, to). Call inside a unit. */
  private async renamed(workspaceId: string, name: string, actor: Actor): Promise<void> {
    const from = await this.workspaceName(workspaceId)
    await this.d.workspaces.rename(workspaceId, name)
    if (from === name) return
    await this.d.events.publish({
      type: 'workspace.renamed',
      workspaceId,
      payload: { actor, target: { type: 'workspace', id: workspaceId }, details: { from, to: name } },
    })
  }
}
