import type { Static } from '@sinclair/typebox'
import { type Clock, iso } from '../../platform/clock/clock'
import type { Config } from '../../platform/config/config.load'
import { newId, type Random } from '../../platform/crypto/random'
import type { SessionClass, SessionTokens } from '../../platform/crypto/token'
import type { Db } from '../../platform/db/db'
import type { Mailer } from '../../platform/email/email'
import { fail, notFound, validationFailed } from '../../platform/errors/errors'
import type { Logger } from '../../platform/log/log'
import type { RateLimiter, RateLimitRule } from '../../platform/rate-limit/rate-limit'
import type { AuditActor, AuditService } from '../audit/audit.service'
import type { WorkspacesService } from '../workspaces/workspaces.service'
import { AccountLinks } from './accounts.links'
import {
  countActiveAdmins,
  deleteUser,
  findUser,
  findUserByEmail,
  findWorkspaceUser,
  insertAccessRequest,
  insertUser,
  listWorkspaceUsers,
  replacePassword,
  spendEmailTokens,
  type UserRow,
  updateUser,
} from './accounts.repo'
import {
  isDisposableAddress,
  type LinkResp,
  normaliseEmail,
  type RegisterReq,
  requireName,
  type TokenResp,
  type UserResp,
} from './accounts.schemas'

export type { UserRow }

/** What the accounts feature is built from. */
export interface AccountsDeps {
  db: Db
  clock: Clock
  random: Random
  config: Config
  mailer: Mailer
  limiter: RateLimiter
  sessions: SessionTokens
  workspaces: WorkspacesService
  audit: AuditService
  log: Logger
}

/** Where a request came from, for rate limits and the audit trail. */
export interface Caller {
  ip: string
  requestId: string
  /** The caller is on the server's machine (loopback socket, no proxy): see `deliverLink`. */
  loopback?: boolean
}

/** Where a verification or reset link went (`link_delivery` in responses). */
export type LinkDelivery = 'email' | 'response' | 'server_log'

type Token = Static<typeof TokenResp>
type Link = Static<typeof LinkResp>

const HOUR = 3_600_000

/** Sign-up, email verification, passwords and sign-in. */
export class AccountsService {
  private readonly rules: Record<'register' | 'openSignup' | 'login', RateLimitRule>
  private dummyHash: Promise<string> | null = null
  private readonly links: AccountLinks

  constructor(private readonly d: AccountsDeps) {
    this.links = new AccountLinks(d.db, d.clock, d.random, d.config, d.mailer)
    const a = d.config.accounts
    this.rules = {
      register: { name: 'register', max: a.register_per_ip_hour, windowMs: HOUR },
      openSignup: { name: 'open_signup', max: a.open_signup_per_ip_day, windowMs: 24 * HOUR },
      login: { name: 'login', max: a.login_per_ip_minute, windowMs: 60_000 },
    }
  }

  /** `POST /auth/register`: a new workspace and its first admin (spec, Accounts and sign-in). */
  async register(body: Static<typeof RegisterReq>, caller: Caller): Promise<Token> {
    const { accounts } = this.d.config
    const open = accounts.signup_mode === 'open'
    if (!this.registrationOpen()) throw fail('registration_closed')
    this.d.limiter.hit(this.rules.register, caller.ip)
    if (open) this.d.limiter.hit(this.rules.openSignup, caller.ip)

    const email = normaliseEmail(body.email)
    const name = requireName(body.name, 'name')
    const workspaceName = requireName(body.workspace_name, 'workspace_name')
    if (isDisposableAddress(email)) {
      throw validationFailed([
        {
          loc: ['body', 'email'],
          msg: 'Disposable email addresses are not accepted',
          type: 'disposable_email',
        },
      ])
    }
    if (findUserByEmail(this.d.db, email)) throw fail('email_taken')
    const passwordHash = await this.hashPassword(body.password)

    const user = this.transaction(() => {
      // Checked again where it cannot race: two first sign-ups at once make one workspace.
      if (!this.registrationOpen()) throw fail('registration_closed')
      // Open sign-up lands on the configured plan, unverified; invite mode on the legacy beta plan.
      const ws = this.d.workspaces.create(workspaceName, open ? accounts.default_plan : 'beta')
      return this.createUser({
        workspaceId: ws.id,
        email,
        name,
        passwordHash,
        role: 'admin',
        verified: !open,
      })
    })
    if (!open) return this.signIn(user, 'normal', 'register', caller)

    const link = await this.links.issue(user, 'verify_email', { wait: true })
    const out: Token = { access_token: '', token_type: 'bearer', expires_at: null, email_verified: false }
    const delivered = this.deliverLink(link, user, 'verify_email', caller)
    if (delivered) out.verify_link = delivered
    out.link_delivery = this.linkDelivery(caller)
    return out
  }

  /**
   * Whether `/auth/register` takes a new workspace: always in open mode; in invite mode per the
   * registration switch, where `first` is open only while the install has no workspace at all (the
   * operator creates theirs, then the door closes).
   */
  registrationOpen(): boolean {
    const { accounts } = this.d.config
    if (accounts.signup_mode === 'open' || accounts.registration === 'on') return true
    return accounts.registration === 'first' && !this.d.workspaces.any()
  }

  /** True while the install has no workspace at all: the console offers to create the first one. */
  firstRun(): boolean {
    return !this.d.workspaces.any()
  }

  /** Where a link for this caller goes while it is being issued (independent of the address). */
  private linkDelivery(caller: Caller): LinkDelivery {
    if (this.d.mailer.enabled) return 'email'
    return caller.loopback ? 'response' : 'server_log'
  }

  /**
   * With email disabled, a verification or reset link is the key to an account, so it is answered
   * only to a caller on the server's own machine (the operator). Anyone else who asks gets
   * \`sent\`, and the link goes to the server log, where only the operator reads it: a stranger
   * who can reach the server can no longer take over an account by asking for its reset link.
   */
  private deliverLink(link: string | null, user: UserRow, kind: string, caller: Caller): string | null {
    if (link === null) return null
    if (caller.loopback) return link
    this.d.log.warn('email is disabled: give this link to the account holder', {
      kind,
      email: user.email,
      link,
      request_id: caller.requestId,
    })
    return null
  }

  /** `GET /auth/verify-email`: spends a verification link once; bad, spent or expired is a 400. */
  verifyEmail(token: string): Link {
    const now = this.now()
    const userId = this.transaction(() => {
      const id = this.links.consume(token, 'verify_email')
      if (id) updateUser(this.d.db, id, { emailVerifiedAt: now }, now)
      return id
    })
    if (!userId) throw fail('invalid_token')
    return { status: 'verified' }
  }

  /** `POST /auth/resend-verification`: always `sent`; a new link at most once per cooldown per address. */
  async resendVerification(rawEmail: string, caller: Caller): Promise<Link> {
    this.d.limiter.hit(this.rules.login, caller.ip)
    const user = findUserByEmail(this.d.db, normaliseEmail(rawEmail))
    const out: Link = { status: 'sent', link_delivery: this.linkDelivery(caller) }
    if (!user || user.emailVerifiedAt !== null || user.status !== 'active') return out
    const link = this.deliverLink(
      await this.links.issue(user, 'verify_email', { wait: false }),
      user,
      'verify_email',
      caller,
    )
    if (link) out.verify_link = link
    return out
  }

  /** `POST /auth/request-access`: always `pending`; a repeat while one is pending adds nothing. */
  requestAccess(rawEmail: string, caller: Caller): Link {
    this.d.limiter.hit(this.rules.register, caller.ip)
    insertAccessRequest(this.d.db, newId(this.d.random, 'acr'), normaliseEmail(rawEmail), this.now())
    return { status: 'pending' }
  }

  /** `POST /auth/forgot-password`: always `sent`; works for accounts with no local password too. */
  async forgotPassword(rawEmail: string, caller: Caller): Promise<Link> {
    this.d.limiter.hit(this.rules.login, caller.ip)
    const user = findUserByEmail(this.d.db, normaliseEmail(rawEmail))
    const out: Link = { status: 'sent', link_delivery: this.linkDelivery(caller) }
    if (user?.status !== 'active') return out
    const link = this.deliverLink(
      await this.links.issue(user, 'reset_password', { wait: false }),
      user,
      'reset_password',
      caller,
    )
    if (link) out.reset_link = link
    return out
  }

  /** `POST /auth/reset-password`: spends the grant once, sets the password, ends older sessions. */
  async resetPassword(token: string, password: string): Promise<Link> {
    const hash = await this.hashPassword(password)
    const now = this.now()
    const userId = this.transaction(() => {
      const id = this.links.consume(token, 'reset_password')
      if (!id) return null
      replacePassword(this.d.db, id, hash, now)
      spendEmailTokens(this.d.db, id, 'reset_password', now)
      return id
    })
    if (!userId) throw fail('invalid_token')
    return { status: 'reset' }
  }

  /** `POST /auth/login`: the password pair; refused for unverified, deactivated and suspended. */
  async login(username: string, password: string, remember: boolean, caller: Caller): Promise<Token> {
    this.d.limiter.hit(this.rules.login, caller.ip)
    const user = findUserByEmail(this.d.db, normaliseEmail(username))
    // Verify against a dummy hash when there is no password, so timing does not reveal accounts.
    const ok = await Bun.password.verify(password, user?.passwordHash ?? (await this.dummy()))
    if (!user?.passwordHash || !ok) throw fail('invalid_credentials')
    if (user.emailVerifiedAt === null) throw fail('email_not_verified')
    if (user.status !== 'active') throw fail('account_disabled')
    if (this.d.workspaces.get(user.workspaceId)?.status !== 'active') throw fail('workspace_suspended')
    return this.signIn(user, remember ? 'remember' : 'normal', 'password', caller)
  }

  /** Mints a session for a user, records the sign-in, and answers TokenResp. */
  signIn(user: UserRow, cls: SessionClass, method: string, caller: Caller): Token {
    const now = this.now()
    const out = this.mint(user, cls)
    this.transaction(() => {
      updateUser(this.d.db, user.id, { lastLoginAt: now }, now)
      this.d.audit.record({
        workspaceId: user.workspaceId,
        actor: this.userActor(user.id, caller),
        action: 'auth.sign_in',
        target: { type: 'user', id: user.id },
        details: { method, session_class: cls },
      })
    })
    return out
  }

  /** A fresh session token for a user at their current token version (TokenResp). */
  private mint(user: UserRow, cls: SessionClass): Token {
    const { token, claims } = this.d.sessions.issue(
      { userId: user.id, workspaceId: user.workspaceId, tokenVersion: user.tokenVersion },
      cls,
      Math.floor(this.now() / 1000),
    )
    return {
      access_token: token,
      token_type: 'bearer',
      expires_at: iso(new Date(claims.exp * 1000)),
      email_verified: true,
    }
  }

  /**
   * `POST /auth/change-password`: the signed-in user proves the current password and sets a new
   * one. As with a reset, the token version moves on, so every other session (a stolen token
   * included) ends and outstanding reset links stop working; the caller gets a fresh session of
   * the class it had, so the tab that asked stays signed in. Guesses count against the sign-in
   * rate limit: a borrowed session must not become a password oracle.
   */
  async changePassword(
    userId: string,
    current: string,
    next: string,
    cls: SessionClass,
    caller: Caller,
  ): Promise<Token> {
    this.d.limiter.hit(this.rules.login, caller.ip)
    const user = findUser(this.d.db, userId)
    if (!user) throw fail('unauthorized')
    // An account with no local password still pays one verification, like sign-in.
    const ok = await Bun.password.verify(current, user.passwordHash ?? (await this.dummy()))
    if (!user.passwordHash || !ok) throw fail('wrong_password')
    const hash = await this.hashPassword(next)
    const now = this.now()
    const changed = this.transaction(() => {
      // A reset or another change that landed while this one hashed has ended this session.
      const row = findUser(this.d.db, userId)
      if (row?.tokenVersion !== user.tokenVersion) {
        throw fail('unauthorized', 'This session has ended. Sign in again.')
      }
      replacePassword(this.d.db, userId, hash, now)
      spendEmailTokens(this.d.db, userId, 'reset_password', now)
      this.d.audit.record({
        workspaceId: user.workspaceId,
        actor: this.userActor(userId, caller),
        action: 'auth.password_changed',
        target: { type: 'user', id: userId },
      })
      return findUser(this.d.db, userId)!
    })
    return this.mint(changed, cls)
  }

  /** `PATCH /auth/me`: the caller's own display name (the workspace name is an admin's, via setup). */
  rename(userId: string, name: string): Static<typeof UserResp> {
    const display = requireName(name, 'name')
    if (!findUser(this.d.db, userId)) throw fail('unauthorized')
    updateUser(this.d.db, userId, { name: display }, this.now())
    return this.profile(userId)
  }

  /** Creates a user row; `verified` stamps the address as proven now. Call inside a transaction. */
  createUser(u: {
    workspaceId: string
    email: string
    name: string
    passwordHash: string | null
    role: 'admin' | 'member'
    verified: boolean
  }): UserRow {
    const at = this.now()
    const row: UserRow = {
      id: newId(this.d.random, 'usr'),
      workspaceId: u.workspaceId,
      email: u.email,
      name: u.name,
      passwordHash: u.passwordHash,
      role: u.role,
      status: 'active',
      emailVerifiedAt: u.verified ? at : null,
      tokenVersion: 0,
      lastLoginAt: null,
      createdAt: at,
      updatedAt: at,
    }
    try {
      insertUser(this.d.db, row)
    } catch (e) {
      // The unique index settles a race between two sign-ups for the same address.
      if (String((e as Error).message).includes('UNIQUE')) throw fail('email_taken')
      throw e
    }
    return row
  }

  /** UserResp of a user id (the caller's own). */
  profile(userId: string): Static<typeof UserResp> {
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
  setup(userId: string, workspaceName: string, name: string): Static<typeof UserResp> {
    const ws = requireName(workspaceName, 'workspace_name')
    const display = requireName(name, 'name')
    const user = findUser(this.d.db, userId)
    if (!user) throw fail('unauthorized')
    this.transaction(() => {
      this.d.workspaces.rename(user.workspaceId, ws)
      updateUser(this.d.db, user.id, { name: display }, this.now())
    })
    return this.profile(userId)
  }

  /** The user holding an address (normalised here), or undefined. */
  userByEmail(email: string): UserRow | undefined {
    return findUserByEmail(this.d.db, normaliseEmail(email))
  }

  /** Every user of a workspace, oldest first. */
  workspaceUsers(workspaceId: string): UserRow[] {
    return listWorkspaceUsers(this.d.db, workspaceId)
  }

  /** A user of the workspace; another workspace's user answers 404 like a missing one. */
  workspaceUser(workspaceId: string, userId: string): UserRow {
    const user = findWorkspaceUser(this.d.db, workspaceId, userId)
    if (!user) throw notFound('Member')
    return user
  }

  /** Active admins left in a workspace (the last-admin rules count these). */
  activeAdmins(workspaceId: string): number {
    return countActiveAdmins(this.d.db, workspaceId)
  }

  /** Changes a user's role; it applies from the next request, as sessions read the role each time. */
  setRole(userId: string, role: 'admin' | 'member'): void {
    updateUser(this.d.db, userId, { role }, this.now())
  }

  /** Removes a user; their sessions stop working on the next request. */
  removeUser(userId: string): void {
    deleteUser(this.d.db, userId)
  }

  /** Hashes a password with argon2id at the configured memory cost. */
  hashPassword(password: string): Promise<string> {
    return Bun.password.hash(password, {
      algorithm: 'argon2id',
      memoryCost: this.d.config.security.password_memory_kib,
      timeCost: 2,
    })
  }

  /** Runs `fn` in one SQLite transaction (the services' writes are synchronous). */
  transaction<T>(fn: () => T): T {
    return this.d.db.$client.transaction(fn)()
  }

  private userActor(id: string, caller: Caller): AuditActor {
    return { type: 'user', id, ip: caller.ip, requestId: caller.requestId }
  }

  private now(): number {
    return this.d.clock.now().getTime()
  }

  private dummy(): Promise<string> {
    this.dummyHash ??= this.hashPassword('not-a-real-password')
    return this.dummyHash
  }
}
