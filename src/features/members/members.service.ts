import type { Static } from '@sinclair/typebox'
import { actorOf, type Principal } from '../../platform/auth/principal'
import { type Clock, iso } from '../../platform/clock/clock'
import { baseUrl, type Config } from '../../platform/config/config.load'
import { sha256Hex } from '../../platform/crypto/hash'
import { newId, type Random } from '../../platform/crypto/random'
import { newLinkToken } from '../../platform/crypto/token'
import type { Store } from '../../platform/db/store'
import type { Mailer } from '../../platform/email/email'
import { fail, notFound, validationFailed } from '../../platform/errors/errors'
import type { Outbox } from '../../platform/events/outbox'
import { type LinkResp, normaliseEmail, requireName, type TokenResp } from '../accounts/accounts.schemas'
import type { AccountsService, Caller, UserRow } from '../accounts/accounts.service'
import type { PlansService } from '../plans/plans.service'
import type { WorkspacesService } from '../workspaces/workspaces.service'
import { type InviteRow, MembersRepo } from './members.repo'
import type { AcceptInviteReq, InviteInfoResp, InviteResp, MemberResp, MembersResp } from './members.schemas'

/** What the members feature is built from. */
export interface MembersDeps {
  /**
   * Members' changes are units of work on it. Accounts is not on the store yet: its synchronous
   * writes made inside a unit join it on SQLite, where both share the one connection.
   */
  store: Store
  clock: Clock
  random: Random
  config: Pick<Config, 'accounts' | 'server'>
  mailer: Mailer
  accounts: AccountsService
  workspaces: WorkspacesService
  /** Membership changes are told as `member.joined` / `member.changed` / `member.removed` (the audit log subscribes). */
  events: Outbox
  /** Members and live invitations take the plan's `seats`. */
  plans: Pick<PlansService, 'ensureRoom' | 'holdCap'>
}

type Role = 'admin' | 'member'

/** The wire form of a member. */
export function memberResp(u: UserRow): Static<typeof MemberResp> {
  return {
    id: u.id,
    email: u.email,
    name: u.name,
    role: u.role,
    status: u.status,
    email_verified: u.emailVerifiedAt !== null,
    last_login_at: u.lastLoginAt === null ? null : iso(new Date(u.lastLoginAt)),
    created_at: iso(new Date(u.createdAt)),
  }
}

function inviteResp(i: InviteRow): Static<typeof InviteResp> {
  return {
    id: i.id,
    email: i.email,
    role: i.role,
    invited_by: i.invitedBy,
    expires_at: iso(new Date(i.expiresAt)),
    created_at: iso(new Date(i.createdAt)),
  }
}

/** Workspace administration: members, roles, removal and invitations. */
export class MembersService {
  private readonly repo: MembersRepo

  constructor(private readonly d: MembersDeps) {
    this.repo = new MembersRepo(d.store)
  }

  /** `GET /admin/members`: members plus invitations not yet accepted. */
  async list(workspaceId: string): Promise<Static<typeof MembersResp>> {
    return {
      members: (await this.d.accounts.workspaceUsers(workspaceId)).map(memberResp),
      invites: (await this.repo.listOpen(workspaceId)).map(inviteResp),
    }
  }

  /**
   * `POST /admin/invites`: invites an address (again, if an invitation is open: the old link stops
   * working). The accept link goes where every link goes (ENGRAM_EMAIL): mailed, written to the
   * server log for the operator, or, only when email is explicitly `disabled`, in the answer.
   */
  async invite(p: Principal, rawEmail: string, role: Role, caller: Caller): Promise<Static<typeof LinkResp>> {
    const email = normaliseEmail(rawEmail)
    const existing = await this.d.accounts.userByEmail(email)
    // Only a member of this workspace is reported; whether an address has an account elsewhere is not ours to tell.
    if (existing?.workspaceId === p.workspaceId) throw fail('conflict', 'This address is already a member.')
    const ws = await this.d.workspaces.get(p.workspaceId)
    if (!ws) throw notFound('Workspace')
    const now = this.d.clock.now().getTime()
    const { token, hash } = newLinkToken(this.d.random)
    const expiresAt = now + this.d.config.accounts.invite_days * 86_400_000
    const invitedBy = p.userId ?? p.keyId
    await this.d.store.unit(async () => {
      // A seat is held from the invitation on (re-inviting the address holds none more), so accepting
      // what was sent does not fail later; counted here with the seats held (holdCap), so parallel
      // invitations cannot pass the cap on either engine.
      await this.d.plans.holdCap(p.workspaceId, 'seats')
      const invited = await this.repo.countLive(p.workspaceId, now, email)
      await this.d.plans.ensureRoom(p.workspaceId, 'seats', (await this.seats(p.workspaceId)) + invited)
      const open = await this.repo.findOpen(p.workspaceId, email)
      const id = open?.id ?? newId(this.d.random, 'inv')
      if (open) await this.repo.reissue(id, { role, tokenHash: hash, sentAt: now, expiresAt, invitedBy })
      else {
        await this.repo.insert({
          id,
          workspaceId: p.workspaceId,
          email,
          role,
          tokenHash: hash,
          invitedBy,
          sentAt: now,
          expiresAt,
          acceptedAt: null,
          createdAt: now,
        })
      }
      // Audited (never the link): who invited which address, and whether an open invitation was sent again.
      await this.d.events.publish({
        type: 'member.invited',
        workspaceId: p.workspaceId,
        payload: {
          actor: actorOf(p, caller.ip, caller.requestId),
          target: { type: 'invite', id },
          details: { email, role, reissued: open !== undefined },
        },
      })
    })
    const link = `${baseUrl(this.d.config)}/console/accept-invite?token=${token}`
    // The admin waits for the mail server: the answer says whether the invitation went out.
    const handed = await this.d.mailer.deliverLink(
      {
        to: email,
        kind: 'invite',
        link,
        requestId: caller.requestId,
        subject: `You are invited to ${ws.name} on Engram`,
        text: `Hello,\n\nYou are invited to join the workspace "${ws.name}" on Engram. To accept, open:\n\n${link}\n\nThe link works once and expires in ${this.d.config.accounts.invite_days} days.\n`,
      },
      { wait: true },
    )
    const out: Static<typeof LinkResp> = {
      status: handed.sent ? 'sent' : 'failed',
      link_delivery: handed.delivery,
    }
    if (handed.link) out.invite_link = handed.link
    return out
  }

  /** `DELETE /admin/invites/{id}`: withdraws an open invitation; another workspace's id is a 404. */
  async revokeInvite(p: Principal, inviteId: string, caller?: Caller): Promise<void> {
    await this.d.store.unit(async () => {
      if (!(await this.repo.delete(p.workspaceId, inviteId))) throw notFound('Invite')
      await this.d.events.publish({
        type: 'member.invite_revoked',
        workspaceId: p.workspaceId,
        payload: {
          actor: actorOf(p, caller?.ip, caller?.requestId),
          target: { type: 'invite', id: inviteId },
        },
      })
    })
  }

  /** `PATCH /admin/members/{id}`: changes a role; the last active admin cannot be demoted. */
  changeRole(p: Principal, userId: string, role: Role, caller: Caller): Promise<Static<typeof MemberResp>> {
    const a = this.d.accounts
    return this.d.store.unit(async () => {
      const user = await a.workspaceUser(p.workspaceId, userId)
      if (user.role === role) return memberResp(user)
      await this.keepLastAdmin(user, 'demoted')
      await a.setRole(user.id, role)
      await this.d.events.publish({
        type: 'member.changed',
        workspaceId: p.workspaceId,
        payload: {
          userId: user.id,
          email: user.email,
          from: user.role,
          role,
          actor: actorOf(p, caller.ip, caller.requestId),
        },
      })
      return memberResp({ ...user, role })
    })
  }

  /** `DELETE /admin/members/{id}`: removes a member; never yourself, never the last admin. */
  async remove(p: Principal, userId: string, caller: Caller): Promise<void> {
    const a = this.d.accounts
    await this.d.store.unit(async () => {
      if (p.userId === userId) throw fail('cannot_remove_self')
      const user = await a.workspaceUser(p.workspaceId, userId)
      await this.keepLastAdmin(user, 'removed')
      await a.removeUser(user.id)
      await this.d.events.publish({
        type: 'member.removed',
        workspaceId: p.workspaceId,
        payload: {
          userId: user.id,
          email: user.email,
          role: user.role,
          actor: actorOf(p, caller.ip, caller.requestId),
        },
      })
    })
  }

  /** Seats a workspace's members take (every member, as `/admin/billing` counts them). */
  private async seats(workspaceId: string): Promise<number> {
    return (await this.d.accounts.workspaceUsers(workspaceId)).length
  }

  /** Refuses to demote or remove a workspace's last active admin (call inside the change's unit). */
  private async keepLastAdmin(user: UserRow, change: 'demoted' | 'removed'): Promise<void> {
    if (user.role !== 'admin' || user.status !== 'active') return
    if ((await this.d.accounts.activeAdmins(user.workspaceId)) <= 1) {
      throw fail('last_admin', `The last admin of a workspace cannot be ${change}.`)
    }
  }

  /** `POST /auth/invite-info`: the workspace and address a live invitation names. */
  async info(token: string): Promise<Static<typeof InviteInfoResp>> {
    const invite = await this.repo.findLive(sha256Hex(token), this.d.clock.now().getTime())
    const ws = invite && (await this.d.workspaces.get(invite.workspaceId))
    if (!invite || !ws) throw fail('invalid_token')
    return {
      workspace_id: ws.id,
      workspace_name: ws.name,
      email: invite.email,
      role: invite.role,
      expires_at: iso(new Date(invite.expiresAt)),
      sso_required: await this.d.accounts.ssoPolicy().enforces(ws.id),
    }
  }

  /**
   * `POST /auth/accept-invite`: creates the invitee (address proven by the link) and signs them in.
   * Where the workspace enforces single sign-on the member is made without a password (one sent is
   * not stored: it could never sign in, and the page may predate enforcement) and gets no session,
   * which enforcement would end at once: the answer says `sso_required`, and they sign in through
   * the provider, which finds them by address.
   */
  async accept(body: Static<typeof AcceptInviteReq>, caller: Caller): Promise<Static<typeof TokenResp>> {
    const name = requireName(body.name, 'name')
    const a = this.d.accounts
    const hash = body.password === undefined ? null : await a.hashPassword(body.password)
    const { user, sso } = await this.d.store.unit(async () => {
      const invite = await this.repo.accept(sha256Hex(body.token), this.d.clock.now().getTime())
      if (!invite) throw fail('invalid_token')
      if ((await this.d.workspaces.get(invite.workspaceId))?.status !== 'active')
        throw fail('workspace_suspended')
      // The cap may have shrunk since the invitation: the members alone must leave a seat. Thrown in
      // here, so the acceptance is rolled back (the link still works once there is room).
      await this.d.plans.holdCap(invite.workspaceId, 'seats')
      await this.d.plans.ensureRoom(invite.workspaceId, 'seats', await this.seats(invite.workspaceId))
      const sso = await a.ssoPolicy().enforces(invite.workspaceId)
      // Thrown in here, so the acceptance is rolled back with it.
      if (!sso && hash === null) {
        throw validationFailed([{ loc: ['body', 'password'], msg: 'Field required', type: 'missing' }])
      }
      // A duplicate address throws email_taken here, which rolls back the acceptance too.
      const created = await a.createUser({
        workspaceId: invite.workspaceId,
        email: invite.email,
        name,
        passwordHash: sso ? null : hash,
        role: invite.role,
        verified: true,
      })
      await this.d.events.publish({
        type: 'member.joined',
        workspaceId: invite.workspaceId,
        payload: { userId: created.id, role: created.role, inviteId: invite.id },
      })
      return { user: created, sso }
    })
    if (sso) {
      return {
        access_token: '',
        token_type: 'bearer',
        expires_at: null,
        email_verified: true,
        sso_required: true,
      }
    }
    return await a.signIn(user, 'normal', 'invite', caller)
  }
}
