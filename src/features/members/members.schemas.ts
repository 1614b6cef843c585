import { Type } from '@sinclair/typebox'
import { Email, LinkToken, Name, Password } from '../accounts/accounts.schemas'

const Role = Type.Union([Type.Literal('admin'), Type.Literal('member')])
const Time = Type.String({ format: 'date-time' })

export const UserIdParams = Type.Object({ user_id: Type.String({ maxLength: 64 }) })
export const InviteIdParams = Type.Object({ invite_id: Type.String({ maxLength: 64 }) })

export const InviteCreateReq = Type.Object({
  email: Email,
  role: Type.Optional({ ...Role, default: 'member' }),
})

export const RoleUpdateReq = Type.Object({ role: Role })

export const MemberResp = Type.Object({
  id: Type.String(),
  email: Type.String(),
  name: Type.String(),
  role: Role,
  status: Type.Union([Type.Literal('active'), Type.Literal('deactivated')]),
  email_verified: Type.Boolean(),
  last_login_at: Type.Union([Time, Type.Null()]),
  created_at: Time,
})

export const InviteResp = Type.Object({
  id: Type.String(),
  email: Type.String(),
  role: Role,
  invited_by: Type.Union([Type.String(), Type.Null()]),
  expires_at: Time,
  created_at: Time,
})

export const MembersResp = Type.Object({
  members: Type.Array(MemberResp),
  invites: Type.Array(InviteResp, { description: 'Invitations not yet accepted (expired ones included).' }),
})

export const InviteInfoReq = Type.Object({ token: LinkToken })

export const InviteInfoResp = Type.Object({
  workspace_id: Type.String(),
  workspace_name: Type.String(),
  email: Type.String(),
  role: Role,
  expires_at: Time,
})

export const AcceptInviteReq = Type.Object({
  token: LinkToken,
  password: Password,
  name: { ...Name, description: 'Display name.' },
})
