import type { Static } from '@sinclair/typebox'
import { newId } from '../../platform/crypto/random'
import { isUniqueViolation } from '../../platform/db/constraint'
import { transaction } from '../../platform/db/transaction'
import { fail, validationFailed } from '../../platform/errors/errors'
import type { PasswordHasher } from './accounts.hasher'
import type { AccountLimits } from './accounts.limits'
import type { AccountLinks } from './accounts.links'
import { findUserByEmail, insertAccessRequest, insertUser, type UserRow, updateUser } from './accounts.repo'

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
    this.admitCaller(caller)
    const email = normaliseEmail(body.email)
    const name = requireName(body.name, 'name')
    const workspaceName = requireName(body.workspace_name, 'workspace_name')
    this.admitAddress(email)
    const passwordHash = await this.hasher.hash(body.password)

    // Open sign-up is verified by email; invite mode needs no verification.
    const user = transaction(this.d.db, () =>
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
  admitSignUp(email: string, caller: Caller): void {
    this.admitCaller(caller)
    this.admitAddress(normaliseEmail(email))
  }

  /** The registration switch, then the client address's sign-up limits (every attempt counts). */
  private admitCaller(caller: Caller): void {
    if (!this.registrationOpen()) throw fail('registration_closed')
    this.limits.register(caller.ip)
    if (this.d.config.accounts.signup_mode === 'open') this.limits.openSignup(caller.ip)
  }

  /** A disposable address is a 422 on `email`; a taken one a 409. */
  private admitAddress(email: string): void {
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
  }

  /**
   * A new workspace and its first admin, after `admitSignUp`. Call inside a transaction: the switch
   * is checked again there, where it cannot race (two first sign-ups at once make one workspace).
   * Open mode lands on the configured plan, invite mode on the legacy beta plan.
   */
  createWorkspace(u: Omit<NewUser, 'workspaceId' | 'role'> & { workspaceName: string }): UserRow {
    const { accounts } = this.d.config
    if (!this.registrationOpen()) throw fail('registration_closed')
    const plan = accounts.signup_mode === 'open' ? accounts.default_plan : 'beta'
    const ws = this.d.workspaces.create(u.workspaceName, plan)
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
  registrationOpen(): boolean {
    const { accounts } = this.d.config
    if (accounts.signup_mode === 'open' || accounts.registration === 'on') return true
    return accounts.registration === 'first' && !this.d.workspaces.any()
  }

  /** True while the install has no workspace at all: the console offers to create the first one. */
  firstRun(): boolean {
    return !this.d.workspaces.any()
  }

  /** `GET /auth/verify-email`: spends a verification link once; bad, spent or expired is a 400. */
  verifyEmail(token: string): Link {
    const now = this.d.clock.now().getTime()
    const userId = transaction(this.d.db, () => {
      const id = this.links.consume(token, 'verify_email')
      if (id) updateUser(this.d.db, id, { emailVerifiedAt: now }, now)
      return id
    })
    if (!userId) throw fail('invalid_token')
    return { status: 'verified' }
  }

  /** `POST /auth/resend-verification`: always `sent`; a new link at most once per cooldown per address. */
  async resendVerification(rawEmail: string, caller: Caller): Promise<Link> {
    this.limits.link(caller.ip, rawEmail)
    const user = findUserByEmail(this.d.db, normaliseEmail(rawEmail))
    const unverified = user && user.emailVerifiedAt === null && user.status === 'active'
    return this.links.answer(unverified ? user : undefined, 'verify_email', caller)
  }

  /** `POST /auth/request-access`: always `pending`; a repeat while one is pending adds nothing. */
  requestAccess(rawEmail: string, caller: Caller): Link {
    this.limits.register(caller.ip)
    const at = this.d.clock.now().getTime()
    insertAccessRequest(this.d.db, newId(this.d.random, 'acr'), normaliseEmail(rawEmail), at)
    return { status: 'pending' }
  }

  /** Creates a user row; `verified` stamps the address as proven now. Call inside a transaction. */
  createUser(u: NewUser): UserRow {
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
      insertUser(this.d.db, row)
    } catch (e) {
      // The unique index settles a race between two sign-ups for the same address.
      if (isUniqueViolation(e)) throw fail('email_taken')
      throw e
    }
    return row
  }
}
