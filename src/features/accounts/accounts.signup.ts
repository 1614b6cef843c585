import type { Static } from '@sinclair/typebox'
import { newId } from '../../platform/crypto/random'
import { isUniqueViolation } from '../../platform/db/failures'
import { holdInUnit } from '../../platform/db/hold'
import { fail, validationFailed } from '../../platform/errors/errors'
import type { PasswordHasher } from './accounts.hasher'
import type { AccountLimits } from './accounts.limits'
import type { AccountLinks } from './accounts.links'
import type { UserRow } from './accounts.repo'

import { isDisposableAddress, normaliseEmail, type RegisterReq, requireName } from './accounts.schemas'
import type { SignIn } from './accounts.signin'
import type { AccountsDeps, Caller, Link, Token } from './accounts.types'

/** What a new user row needs; `verified` stamps the address as proven now. */
export interface NewUser {
  workspaceId: string
  email: string
  name: string
  passwordHash: string | null
  role: 'admin' | 'member'
  verified: boolean
}

/** Sign-up: the first-run and open-registration rules, new users, email verification, access requests. */
export class SignUp {
  constructor(
    private readonly d: AccountsDeps,
    private readonly limits: AccountLimits,
    private readonly hasher: PasswordHasher,
    private readonly links: AccountLinks,
    private readonly signIn: SignIn,
  ) {}

  /** `POST /auth/register`: a new workspace and its first admin (spec, Accounts and sign-in). */
  async register(body: Static<typeof RegisterReq>, caller: Caller): Promise<Token> {
    const open = this.d.config.accounts.signup_mode === 'open'
    await this.admitCaller(caller)
    const email = normaliseEmail(body.email)
    const name = requireName(body.name, 'name')
    const workspaceName = requireName(body.workspace_name, 'workspace_name')
    await this.admitAddress(email)
    // Hashed before the unit: on SQLite a unit awaits nothing but the database.
    const passwordHash = await this.hasher.hash(body.password)

    // Open sign-up is verified by email; invite mode needs no verification.
    const user = await this.d.store.unit(() =>
      this.createWorkspace({ workspaceName, email, name, passwordHash, verified: !open }),
    )
    if (!open) return this.signIn.signIn(user, 'normal', 'register', caller)

    const delivered = await this.links.issue(user, 'verify_email', caller, { wait: true })
    const out: Token = { access_token: '', token_type: 'bearer', expires_at: null, email_verified: false }
    if (delivered) out.verify_link = delivered
    out.link_delivery = this.links.delivery()
    return out
  }

  /**
   * The refusals and limits every new workspace passes, whichever way it signs up (`/auth/register`,
   * a provider's first sign-in): the registration switch, the per-address sign-up limits (hourly,
   * and daily in open mode), a disposable address (422 on `email`), an address already taken.
   */
  async admitSignUp(email: string, caller: Caller): Promise<void> {
    await this.admitCaller(caller)
    await this.admitAddress(normaliseEmail(email))
  }

  /** The registration switch, then the client address's sign-up limits (every attempt counts). */
  private async admitCaller(caller: Caller): Promise<void> {
    if (!(await this.registrationOpen())) throw fail('registration_closed')
    await this.limits.register(caller.ip)
    if (this.d.config.accounts.signup_mode === 'open') await this.limits.openSignup(caller.ip)
  }

  /** A disposable address is a 422 on `email`; a taken one a 409. */
  private async admitAddress(email: string): Promise<void> {
    if (isDisposableAddress(email)) {
      throw validationFailed([
        {
          loc: ['body', 'email'],
          msg: 'Disposable email addresses are not accepted',
          type: 'disposable_email',
        },
      ])
    }
    if (await this.d.repo.userByEmail(email)) throw fail('email_taken')
  }

  /**
   * A new workspace and its first admin, after `admitSignUp`. Call inside a unit: the switch is
   * checked again there, with the install's first sign-up held in `first` mode (an advisory lock on
   * PostgreSQL, SQLite's one writer), so two first sign-ups at once make one workspace and the other
   * is `registration_closed`. Open mode lands on the configured plan, invite mode on the legacy beta plan.
   */
  async createWorkspace(
    u: Omit<NewUser, 'workspaceId' | 'role'> & { workspaceName: string },
  ): Promise<UserRow> {
    const { accounts } = this.d.config
    if (accounts.signup_mode !== 'open' && accounts.registration === 'first') {
      await holdInUnit(this.d.store, 'registration:first')
    }
    if (!(await this.registrationOpen())) throw fail('registration_closed')
    const plan = accounts.signup_mode === 'open' ? accounts.default_plan : 'beta'
    const ws = await this.d.workspaces.create(u.workspaceName, plan)
    return this.createUser({
      workspaceId: ws.id,
      email: u.email,
      name: u.name,
      passwordHash: u.passwordHash,
      role: 'admin',
      verified: u.verified,
    })
  }

  /**
   * Whether `/auth/register` takes a new workspace: always in open mode; in invite mode per the
   * registration switch, where `first` is open only while the install has no workspace at all (the
   * operator creates theirs, then the door closes).
   */
  async registrationOpen(): Promise<boolean> {
    const { accounts } = this.d.config
    if (accounts.signup_mode === 'open' || accounts.registration === 'on') return true
    return accounts.registration === 'first' && !(await this.d.workspaces.any())
  }

  /** True while the install has no workspace at all: the console offers to create the first one. */
  async firstRun(): Promise<boolean> {
    return !(await this.d.workspaces.any())
  }

  /** `GET /auth/verify-email`: spends a verification link once; bad, spent or expired is a 400. */
  async verifyEmail(token: string): Promise<Link> {
    const now = this.d.clock.now().getTime()
    const userId = await this.d.store.unit(async () => {
      const id = await this.links.consume(token, 'verify_email', now)
      if (id) await this.d.repo.updateUser(id, { emailVerifiedAt: now }, now)
      return id
    })
    if (!userId) throw fail('invalid_token')
    return { status: 'verified' }
  }

  /** `POST /auth/resend-verification`: always `sent`; a new link at most once per cooldown per address. */
  async resendVerification(rawEmail: string, caller: Caller): Promise<Link> {
    await this.limits.link(caller.ip, rawEmail)
    const user = await this.d.repo.userByEmail(normaliseEmail(rawEmail))
    const unverified = user && user.emailVerifiedAt === null && user.status === 'active'
    return this.links.answer(unverified ? user : undefined, 'verify_email', caller)
  }

  /** `POST /auth/request-access`: always `pending`; a repeat while one is pending adds nothing. */
  async requestAccess(rawEmail: string, caller: Caller): Promise<Link> {
    await this.limits.register(caller.ip)
    const at = this.d.clock.now().getTime()
    const id = newId(this.d.random, 'acr')
    await this.d.store.unit(() => this.d.repo.insertAccessRequest(id, normaliseEmail(rawEmail), at))
    return { status: 'pending' }
  }

  /** Creates a user row; `verified` stamps the address as proven now. Call inside a unit. */
  async createUser(u: NewUser): Promise<UserRow> {
    const at = this.d.clock.now().getTime()
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
      // A savepoint: a refused insert leaves the caller's unit usable (PostgreSQL aborts a
      // transaction on an error otherwise).
      await this.d.store.unit(() => this.d.repo.insertUser(row))
    } catch (e) {
      // The unique index settles a race between two sign-ups for the same address.
      if (isUniqueViolation(e)) throw fail('email_taken')
      throw e
    }
    return row
  }
}
