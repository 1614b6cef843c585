import { Type } from '@sinclair/typebox'
import { namedObject } from '../../platform/http/schema'
import { Email, LinkToken, Name, Password } from '../accounts/accounts.schemas'

const Role = Type.Union([Type.Literal('admin'), Type.Literal('member')])
const Time = Type.String({ format: 'date-time' })

export const UserIdParams = Type.Object({ user_id: Type.String({ maxLength: 64 }) })
export const InviteIdParams = Type.Object({ invite_id: Type.String({ maxLength: 64 }) })

export const InviteCreateReq = namedObject('InviteCreateReq', {
  email: Email,
  role: Type.Optional({ ...Role, default: 'member' }),
})

export const RoleUpdateReq = namedObject('RoleUpdateReq', { role: Role })

export const MemberResp = namedObject('MemberResp', {
  id: Type.String(),
  email: Type.String(),
  name: Type.String(),
  role: Role,
  status: Type.Union([Type.Literal('active'), Type.Literal('deactivated')]),
  email_verified: Type.Boolean(),
  last_login_at: Type.Union([Time, Type.Null()]),
  created_at: Time,
})

export const InviteResp = namedObject('InviteResp', {
  id: Type.String(),
  email: Type.String(),
  role: Role,
  invited_by: Type.Union([Type.String(), Type.Null()]),
  expires_at: Time,
  created_at: Time,
})

export const MembersResp = namedObject('MembersResp', {
  members: Type.Array(MemberResp),
  invites: Type.Array(InviteResp, { description: 'Invitations not yet accepted (expired ones included).' }),
})

export const InviteInfoReq = namedObject('InviteInfoReq', { token: LinkToken })

export const InviteInfoResp = namedObject('InviteInfoResp', {
  workspace_id: Type.String(),
  workspace_name: Type.String(),
  email: Type.String(),
  role: Role,
  expires_at: Time,
  sso_required: Type.Boolean({
    description:
      'The workspace signs in through single sign-on: accepting asks no password and answers no session; the invitee then signs in with SSO and this address.',
  }),
})

export const AcceptInviteReq = namedObject('AcceptInviteReq', {
  token: LinkToken,
  password: Type.Optional({
    ...Password,
    description:
      '8 to 128 characters. Required unless the workspace enforces single sign-on (`sso_required` in `/auth/invite-info`); there none is set, and one sent is not stored.',
  }),
  name: { ...Name, description: 'Display name.' },
})
