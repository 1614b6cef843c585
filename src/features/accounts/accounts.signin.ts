import type { Actor } from '../../platform/auth/principal'
import { iso } from '../../platform/clock/clock'
import type { SessionClass } from '../../platform/crypto/token'
import { transaction } from '../../platform/db/transaction'
import { fail } from '../../platform/errors/errors'
import type { PasswordHasher } from './accounts.hasher'
import type { AccountLimits } from './accounts.limits'
import { findUserByEmail, type UserRow, updateUser } from './accounts.repo'
import { normaliseEmail } from './accounts.schemas'
import type { AccountsDeps, Caller, Token } from './accounts.types'

/** The audit actor of a signed-in user acting for themselves. */
export function userActor(id: string, caller: Caller): Actor {
  return { type: 'user', id, ip: caller.ip, requestId: caller.requestId }
}

/** Sign-in with the password pair, and the sessions every way of signing in ends with. */
export class SignIn {
  constructor(
    private readonly d: AccountsDeps,
    private readonly limits: AccountLimits,
    private readonly hasher: PasswordHasher,
  ) {}

  /** `POST /auth/login`: the password pair; refused for unverified, deactivated and suspended. */
  async login(username: string, password: string, remember: boolean, caller: Caller): Promise<Token> {
    this.limits.login(caller.ip, username)
    const user = findUserByEmail(this.d.db, normaliseEmail(username))
    const ok = await this.hasher.matches(password, user?.passwordHash)
    if (!user || !ok) throw fail('invalid_credentials')
    if (user.emailVerifiedAt === null) throw fail('email_not_verified')
    if (user.status !== 'active') throw fail('account_disabled')
    if (this.d.workspaces.get(user.workspaceId)?.status !== 'active') throw fail('workspace_suspended')
    return this.signIn(user, remember ? 'remember' : 'normal', 'password', caller)
  }

  /** Mints a session for a user, records the sign-in, and answers TokenResp. */
  signIn(user: UserRow, cls: SessionClass, method: string, caller: Caller): Token {
    const now = this.d.clock.now().getTime()
    const out = this.mint(user, cls)
    transaction(this.d.db, () => {
      updateUser(this.d.db, user.id, { lastLoginAt: now }, now)
      this.d.audit.record({
        workspaceId: user.workspaceId,
        actor: userActor(user.id, caller),
        action: 'auth.sign_in',
        target: { type: 'user', id: user.id },
        details: { method, session_class: cls },
      })
    })
    return out
  }

  /** A fresh session token for a user at their current token version (TokenResp). */
  mint(user: UserRow, cls: SessionClass): Token {
    const { token, claims } = this.d.sessions.issue(
      { userId: user.id, workspaceId: user.workspaceId, tokenVersion: user.tokenVersion },
      cls,
      Math.floor(this.d.clock.now().getTime() / 1000),
    )
    return {
      access_token: token,
      token_type: 'bearer',
      expires_at: iso(new Date(claims.exp * 1000)),
      email_verified: true,
    }
  }
}
