// The wire shapes of the members and account pages (src/features/members/members.schemas.ts and
// accounts.schemas.ts are the reference).

export type Role = 'admin' | 'member'

export interface Member {
  id: string
  email: string
  name: string
  role: Role
  status: 'active' | 'deactivated'
  email_verified: boolean
  last_login_at: string | null
  created_at: string
}

export interface Invite {
  id: string
  email: string
  role: Role
  invited_by: string | null
  expires_at: string
  created_at: string
}

export interface MembersResp {
  members: Member[]
  invites: Invite[]
}

export interface InviteInfo {
  workspace_id: string
  workspace_name: string
  email: string
  role: Role
  expires_at: string
}
