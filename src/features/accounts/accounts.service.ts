// The accounts feature's face: routes, members and the app call this class only. The work is done

// by parts named for what they do (accounts.signup.ts, accounts.signin.ts, accounts.passwords.ts,
// accounts.profile.ts, with links, limits and hashing beside them); this file builds them from the
// feature's dependencies and answers for them.
import type { Static } from '@sinclair/typebox'
import type { Actor } from '../../platform/auth/principal'
import type { SessionClass } from '../../platform/crypto/token'
import { notFound } from '../../platform/errors/errors'
import { PasswordHasher } from './accounts.hasher'
import { AccountLimits } from './accounts.limits'
import { AccountLinks } from './accounts.links'
import { Passwords } from './accounts.passwords'
import { Profiles } from './accounts.profile'
import type { UserRow } from './accounts.repo'

import { normaliseEmail, type RegisterReq, type UserResp } from './accounts.schemas'
import { SignIn } from './accounts.signin'
import { type NewUser, SignUp } from './accounts.signup'
import type { SsoPolicy } from './accounts.sso'
import type { AccountsDeps, Caller, Link, LinkDelivery, Token } from './accounts.types'

export { SSO_METHODS, type SsoPolicy } from './accounts.sso'
export type { AccountsConfig, AccountsDeps, Caller, LinkDelivery } from './accounts.types'
export type { UserRow }

/** Sign-up, email verification, passwords, sign-in, profiles, and the users other features ask about. */
export class AccountsService {
  private readonly hasher: PasswordHasher
  private readonly signUp: SignUp
  private readonly signIns: SignIn
  private readonly passwords: Passwords
  private readonly profiles: Profiles

  constructor(private readonly d: AccountsDeps) {
    const limits = new AccountLimits(d.limiter, d.config.accounts)
    const links = new AccountLinks(d)
    this.hasher = new PasswordHasher(d.config.security.password_memory_kib)
    this.signIns = new SignIn(d, limits, this.hasher)
    this.signUp = new SignUp(d, limits, this.hasher, links, this.signIns)
    this.passwords = new Passwords(d, limits, this.hasher, links, this.signIns)
    this.profiles = new Profiles(d)
  }

  /** `POST /auth/register`: a new workspace and its first admin (spec, Accounts and sign-in). */
  register(body: Static<typeof RegisterReq>, caller: Caller): Promise<Token> {
    return this.signUp.register(body, caller)
  }

  /**
   * The refusals and limits of `/auth/register` for a sign-up that makes a workspace another way (a
   * provider's first sign-in): registration closed, the per-address sign-up limits, a disposable or
   * taken address. Throws as `/auth/register` would answer.
   */
  admitSignUp(email: string, caller: Caller): Promise<void> {
    return this.signUp.admitSignUp(email, caller)
  }

  /** A new workspace and its first admin, after `admitSignUp`. Call inside a unit. */
  createWorkspace(u: Omit<NewUser, 'workspaceId' | 'role'> & { workspaceName: string }): Promise<UserRow> {
    return this.signUp.createWorkspace(u)
  }

  /** Whether `/auth/register` takes a new workspace now (see `SignUp.registrationOpen`). */
  registrationOpen(): Promise<boolean> {
    return this.signUp.registrationOpen()
  }

  /** True while the install has no workspace at all: the console offers to create the first one. */
  firstRun(): Promise<boolean> {
    return this.signUp.firstRun()
  }

  /** Where verification, reset and invitation links go on this server (ENGRAM_EMAIL); the same for every caller. */
  linkDelivery(): LinkDelivery {
    return this.d.mailer.delivery
  }

  /** `GET /auth/verify-email`: spends a verification link once; bad, spent or expired is a 400. */
  verifyEmail(token: string): Promise<Link> {
    return this.signUp.verifyEmail(token)
  }

  /** `POST /auth/resend-verification`: always `sent`; a new link at most once per cooldown per address. */
  resendVerification(rawEmail: string, caller: Caller): Promise<Link> {
    return this.signUp.resendVerification(rawEmail, caller)
  }

  /** `POST /auth/request-access`: always `pending`; a repeat while one is pending adds nothing. */
  requestAccess(rawEmail: string, caller: Caller): Promise<Link> {
    return this.signUp.requestAccess(rawEmail, caller)
  }

  /** Creates a user row; `verified` stamps the address as proven now. Call inside a unit. */
  createUser(u: NewUser): Promise<UserRow> {
    return this.signUp.createUser(u)
  }

  /** `POST /auth/forgot-password`: always `sent`; works for accounts with no local password too. */
  forgotPassword(rawEmail: string, caller: Caller): Promise<Link> {
    return this.passwords.forgotPassword(rawEmail, caller)
  }

  /** `POST /auth/reset-password`: spends the grant once, sets the password, ends older sessions. */
  resetPassword(token: string, password: string): Promise<Link> {
    return this.passwords.resetPassword(token, password)
  }

  /** `POST /auth/change-password`: a new password; other sessions end, the caller's is renewed. */
  changePassword(
    userId: string,
    current: string,
    next: string,
    cls: SessionClass,
    caller: Caller,
    via = 'password',
  ): Promise<Token> {
    return this.passwords.changePassword(userId, current, next, cls, caller, via)
  }

  /**
   * `POST /auth/login`: the password pair; refused for unverified, deactivated and suspended, and
   * where the workspace enforces SSO unless an admin brings a recovery code. `via` names the method
   * the session records when the password proves a provider link (`/auth/link`: `google`).
   */
  login(
    username: string,
    password: string,
    remember: boolean,
    caller: Caller,
    recoveryCode?: string,
    via = 'password',
  ): Promise<Token> {
    return this.signIns.login(username, password, remember, caller, recoveryCode, via)
  }

  /** Whether any workspace signs in through SSO: the sign-in page then offers it. */
  ssoAvailable(): Promise<boolean> {
    return this.d.sso.available()
  }

  /**
   * Single sign-on's rules as plugged in (none until the sso feature is built): features built
   * before sso read enforcement through this.
   */
  ssoPolicy(): SsoPolicy {
    return this.d.sso
  }

  /** Plugs in single sign-on's rules (the sso feature, built after this one, calls it once). */
  useSsoPolicy(policy: SsoPolicy): void {
    this.d.sso.use(policy)
  }

  /** Mints a session for a user, records the sign-in, and answers TokenResp. */
  signIn(user: UserRow, cls: SessionClass, method: string, caller: Caller): Promise<Token> {
    return this.signIns.signIn(user, cls, method, caller)
  }

  /** UserResp of a user id (the caller's own). */
  profile(userId: string): Promise<Static<typeof UserResp>> {
    return this.profiles.profile(userId)
  }

  /** `PATCH /auth/me`: the caller's own display name (the workspace name is an admin's, via setup). */
  rename(userId: string, name: string): Promise<Static<typeof UserResp>> {
    return this.profiles.rename(userId, name)
  }

  /** The name of a workspace (the caller's own; it exists while its credential works). */
  workspaceName(workspaceId: string): Promise<string> {
    return this.profiles.workspaceName(workspaceId)
  }

  /** `POST /auth/setup` with an API key: renames the workspace only (a key has no display name). */
  renameWorkspace(workspaceId: string, workspaceName: string, actor: Actor): Promise<void> {
    return this.profiles.renameWorkspace(workspaceId, workspaceName, actor)
  }

  /** `POST /auth/setup`: renames the caller's workspace and display name. */
  setup(userId: string, workspaceName: string, name: string, actor: Actor): Promise<Static<typeof UserResp>> {
    return this.profiles.setup(userId, workspaceName, name, actor)
  }

  /** The user holding an address (normalised here), or undefined. */
  userByEmail(email: string): Promise<UserRow | undefined> {
    return this.d.repo.userByEmail(normaliseEmail(email))
  }

  /** Every user of a workspace, oldest first. */
  workspaceUsers(workspaceId: string): Promise<UserRow[]> {
    return this.d.repo.workspaceUsers(workspaceId)
  }

  /** A user of the workspace; another workspace's user answers 404 like a missing one. */
  async workspaceUser(workspaceId: string, userId: string): Promise<UserRow> {
    const user = await this.d.repo.workspaceUser(workspaceId, userId)
    if (!user) throw notFound('Member')
    return user
  }

  /** Active admins left in a workspace (the last-admin rules count these). */
  activeAdmins(workspaceId: string): Promise<number> {
    return this.d.repo.activeAdmins(workspaceId)
  }

  /**
   * Changes a user's role; it applies from the next request, as sessions read the role each time.
   * Call inside a unit.
   */
  async setRole(userId: string, role: 'admin' | 'member'): Promise<void> {
    await this.d.repo.updateUser(userId, { role }, this.d.clock.now().getTime())
  }

  /** Removes a user; their sessions stop working on the next request. Call inside a unit. */
  async removeUser(userId: string): Promise<void> {
    await this.d.repo.deleteUser(userId)
  }

  /** Hashes a password with argon2id at the configured memory cost. */
  hashPassword(password: string): Promise<string> {
    return this.hasher.hash(password)
  }
}
