import { defineRoute, type RouteDef, reply } from '../../platform/http/route'
import { LinkResp, TokenResp } from '../accounts/accounts.schemas'
import {
  AcceptInviteReq,
  InviteCreateReq,
  InviteIdParams,
  InviteInfoReq,
  InviteInfoResp,
  MemberResp,
  MembersResp,
  RoleUpdateReq,
  UserIdParams,
} from './members.schemas'
import type { MembersService } from './members.service'

const ADMIN = ['admin']

// `idempotent: 'once'` where the answer carries a secret (a session token, an invite link while
// email is disabled): an Idempotency-Key replay would mean storing that secret in the clear, so a
// key runs the request once and a reuse is refused (409 `idempotency_key_reused`).

/**
 * `/admin/members`, `/admin/invites` and the public invite routes. Administration needs a workspace
 * admin: a session with the admin role, or an API key holding the `admin` scope.
 */
export function membersRoutes(members: MembersService): RouteDef[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/admin/members',
      auth: 'admin',
      scope: 'admin',
      summary: 'Members of the workspace and invitations not yet accepted',
      tags: ADMIN,
      response: MembersResp,
      handler: ({ principal }) => members.list(principal.workspaceId),
    }),
    defineRoute({
      method: 'POST',
      path: '/admin/invites',
      idempotent: 'once',
      auth: 'admin',
      scope: 'admin',
      summary: 'Invite an address (the link is returned only when email is disabled)',
      description:
        'The invitation link goes where the server sends every link, and `link_delivery` says which: `email` (mailed; `status: failed` when the mail server refused it), `server_log` (no mail server, the default: written to the server log for the operator to pass on) or `response` (email explicitly `disabled`: `invite_link` is in this body).',
      tags: ADMIN,
      errors: ['plan_limit_reached'],
      body: InviteCreateReq,
      response: LinkResp,
      handler: ({ principal, body, ip, requestId }) =>
        members.invite(principal, body.email, body.role ?? 'member', { ip, requestId }),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/admin/invites/:invite_id',
      auth: 'admin',
      scope: 'admin',
      summary: 'Withdraw an invitation',
      tags: ADMIN,
      params: InviteIdParams,
      status: 204,
      handler: async ({ principal, params, ip, requestId }) => {
        await members.revokeInvite(principal, params.invite_id, { ip, requestId })
        return reply(204)
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/admin/members/:user_id',
      auth: 'admin',
      scope: 'admin',
      summary: "Change a member's role (the last admin cannot be demoted)",
      tags: ADMIN,
      params: UserIdParams,
      body: RoleUpdateReq,
      response: MemberResp,
      handler: ({ principal, params, body, ip, requestId }) =>
        members.changeRole(principal, params.user_id, body.role, { ip, requestId }),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/admin/members/:user_id',
      auth: 'admin',
      scope: 'admin',
      summary: 'Remove a member (not yourself, not the last admin)',
      tags: ADMIN,
      params: UserIdParams,
      status: 204,
      handler: async ({ principal, params, ip, requestId }) => {
        await members.remove(principal, params.user_id, { ip, requestId })
        return reply(204)
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/invite-info',
      auth: 'none',
      summary: 'The workspace and address an invitation names',
      tags: ['auth'],
      body: InviteInfoReq,
      response: InviteInfoResp,
      handler: ({ body }) => members.info(body.token),
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/accept-invite',
      idempotent: 'once',
      auth: 'none',
      summary: 'Accept an invitation; the invitee is signed in at once',
      description:
        'The invitee is created with the invited address (verified) and role. In a workspace that enforces single sign-on, no password is asked or stored and no session is answered: `{access_token: "", expires_at: null, email_verified: true, sso_required: true}`, and the invitee signs in with SSO. Elsewhere `password` is required (422).',
      tags: ['auth'],
      errors: ['plan_limit_reached'],
      body: AcceptInviteReq,
      response: TokenResp,
      handler: ({ body, ip, requestId }) => members.accept(body, { ip, requestId }),
    }),
  ]
}
