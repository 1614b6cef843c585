/** The admin routes the admin pages call: API keys, members and invitations, usage. */
import { http, listAll, ok } from './client'
import type { ApiKey, ApiKeyCreated, LinkResp, MembersResp, Role, Scope, Usage } from './types'

/** The workspace's API keys, revoked ones included. */
export function listKeys(signal?: AbortSignal): Promise<ApiKey[]> {
  return listAll((cursor) =>
    ok(http.GET('/v1/api-keys', { params: { query: { limit: 100, cursor } }, signal })),
  )
}

/** Creates a key; the answer holds its secret, shown this once. */
export function createKey(body: {
  name: string
  scopes: Scope[]
  expires_at: string | null
  /** The bases the key is bound to; null: every base. */
  corpus_ids: string[] | null
}): Promise<ApiKeyCreated> {
  return ok(http.POST('/v1/api-keys', { body }))
}

/** Revokes a key (it stays listed, marked revoked). */
export async function revokeKey(id: string): Promise<void> {
  await http.DELETE('/v1/api-keys/{key_id}', { params: { path: { key_id: id } } })
}

/** The workspace's members and pending invitations. */
export function listMembers(signal?: AbortSignal): Promise<MembersResp> {
  return ok(http.GET('/v1/admin/members', { signal }))
}

/** Invites an address; the answer says where the link went. */
export function invite(email: string, role: Role): Promise<LinkResp> {
  return ok(http.POST('/v1/admin/invites', { body: { email, role } }))
}

/** Withdraws an invitation. */
export async function revokeInvite(id: string): Promise<void> {
  await http.DELETE('/v1/admin/invites/{invite_id}', { params: { path: { invite_id: id } } })
}

/** Makes a member an admin, or an admin a member. */
export async function setRole(userId: string, role: Role): Promise<void> {
  await http.PATCH('/v1/admin/members/{user_id}', { params: { path: { user_id: userId } }, body: { role } })
}

/** Removes a member from the workspace. */
export async function removeMember(userId: string): Promise<void> {
  await http.DELETE('/v1/admin/members/{user_id}', { params: { path: { user_id: userId } } })
}

/** The period's usage: totals, questions a day, each base's share. */
export function getUsage(signal?: AbortSignal): Promise<Usage> {
  return ok(http.GET('/v1/admin/usage', { signal }))
}
