import type { Actor } from '../../platform/auth/principal'
import { iso } from '../../platform/clock/clock'
import type { SessionClass } from '../../platform/crypto/token'
import { ApiError, fail } from '../../platform/errors/errors'
import type { PasswordHasher } from './accounts.hasher'
import type { AccountLimits } from './accounts.limits'
import type { UserRow } from './accounts.repo'
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

  /**
   * `POST /auth/login`: the password pair; refused for unverified, deactivated and suspended. Where
   * the workspace enforces SSO a password alone is refused (`sso_required`, said only once the
   * password proved right, so it tells a guesser nothing); an admin who also brings an unused
   * recovery code is let in once (break-glass). `via` is the sign-in method the session and the
   * audit row record: `password`, or the provider whose identity the password is linking (`google`).
   */
  async login(
    username: string,
    password: string,
    remember: boolean,
    caller: Caller,
    recoveryCode?: string,
    via = 'password',
  ): Promise<Token> {
    await this.limits.login(caller.ip, username)
    const user = await this.d.repo.userByEmail(normaliseEmail(username))
    const ok = await this.hasher.matches(password, user?.passwordHash)
    // An address nobody holds belongs to no workspace, so no audit log: only the rate limit sees it.
    if (!user) throw fail('invalid_credentials')
    try {
      if (!ok) throw fail('invalid_credentials')
      if (user.emailVerifiedAt === null) throw fail('email_not_verified')
      if (user.status !== 'active') throw fail('account_disabled')
      if ((await this.d.workspaces.get(user.workspaceId))?.status !== 'active')
        throw fail('workspace_suspended')
      let method = via
      if (await this.d.sso.enforces(user.workspaceId)) {
        if (!recoveryCode || user.role !== 'admin') throw fail('sso_required')
        if (!(await this.d.sso.spendRecoveryCode(user.workspaceId, user.id, recoveryCode, caller))) {
          throw fail('invalid_recovery_code')
        }
        method = 'recovery_code'
      }
      return await this.signIn(user, remember ? 'remember' : 'normal', method, caller)
    } catch (e) {
      if (e instanceof ApiError) await this.refused(user, e.code, caller)
      throw e
    }
  }

  /** Tells a refused password sign-in of a known account (`auth.sign_in_failed`): why, never what was typed. */
  private async refused(user: UserRow, reason: string, caller: Caller): Promise<void> {
    await this.d.store.unit(() =>
      this.d.events.publish({
        type: 'auth.sign_in_failed',
        workspaceId: user.workspaceId,
        payload: {
          actor: userActor(user.id, caller),
          target: { type: 'user', id: user.id },
          details: { method: 'password', reason },
        },
      }),
    )
  }

  /** Mints a session for a user, records the sign-in, and answers TokenResp. */
  async signIn(user: UserRow, cls: SessionClass, method: string, caller: Caller): Promise<Token> {
    const now = this.d.clock.now().getTime()
    const out = this.mint(user, cls, method)
    await this.d.store.unit(async () => {
      await this.d.repo.updateUser(user.id, { lastLoginAt: now }, now)
      await this.d.events.publish({
        type: 'auth.sign_in',
        workspaceId: user.workspaceId,
        payload: {
          actor: userActor(user.id, caller),
          target: { type: 'user', id: user.id },
          details: { method, session_class: cls },
        },
      })
    })
    return out
  }

  /**
   * A fresh session token for a user at their current token version (TokenResp); `method` is how
   * they signed in (`password`, `sso`, ...), which the token carries for SSO enforcement.
   */
  mint(user: UserRow, cls: SessionClass, method = 'password'): Token {
    const nowSec = Math.floor(this.d.clock.now().getTime() / 1000)
    const { token, claims } = this.d.sessions.issue(
      { userId: user.id, workspaceId: user.workspaceId, tokenVersion: user.tokenVersion },
      cls,
      nowSec,
      nowSec,
      method,
    )
    return {
      access_token: token,
      token_type: 'bearer',
      expires_at: iso(new Date(claims.exp * 1000)),
      email_verified: true,
    }
  }
}
