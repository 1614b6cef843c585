import type { SessionClass } from '../../platform/crypto/token'
import { fail } from '../../platform/errors/errors'
import type { PasswordHasher } from './accounts.hasher'
import type { AccountLimits } from './accounts.limits'
import type { AccountLinks } from './accounts.links'
import { normaliseEmail } from './accounts.schemas'
import { type SignIn, userActor } from './accounts.signin'
import type { AccountsDeps, Caller, Link, Token } from './accounts.types'

/** Forgotten passwords (reset links) and changes by the signed-in user. */
export class Passwords {
  constructor(
    private readonly d: AccountsDeps,
    private readonly limits: AccountLimits,
    private readonly hasher: PasswordHasher,
    private readonly links: AccountLinks,
    private readonly signIn: SignIn,
  ) {}

  /** `POST /auth/forgot-password`: always `sent`; works for accounts with no local password too. */
  async forgotPassword(rawEmail: string, caller: Caller): Promise<Link> {
    await this.limits.link(caller.ip, rawEmail)
    const user = await this.d.repo.userByEmail(normaliseEmail(rawEmail))
    return this.links.answer(user?.status === 'active' ? user : undefined, 'reset_password', caller)
  }

  /** `POST /auth/reset-password`: spends the grant once, sets the password, ends older sessions. */
  async resetPassword(token: string, password: string): Promise<Link> {
    const hash = await this.hasher.hash(password)
    const now = this.d.clock.now().getTime()
    const userId = await this.d.store.unit(async () => {
      const id = await this.links.consume(token, 'reset_password', now)
      if (!id) return null
      await this.d.repo.replacePassword(id, hash, now)
      await this.d.repo.spendEmailTokens(id, 'reset_password', now)
      return id
    })
    if (!userId) throw fail('invalid_token')
    return { status: 'reset' }
  }

  /**
   * `POST /auth/change-password`: the signed-in user proves the current password and sets a new
   * one. As with a reset, the token version moves on, so every other session (a stolen token
   * included) ends and outstanding reset links stop working; the caller gets a fresh session of
   * the class and sign-in method (`via`) it had, so the tab that asked stays signed in. Guesses
   * count against the sign-in rate limit: a borrowed session must not become a password oracle.
   */
  async changePassword(
    userId: string,
    current: string,
    next: string,
    cls: SessionClass,
    caller: Caller,
    via = 'password',
  ): Promise<Token> {
    const user = await this.d.repo.user(userId)
    if (!user) throw fail('unauthorized')
    // A borrowed session's guesses share the account's budget with sign-in's.
    await this.limits.login(caller.ip, user.email)
    // An account with no local password still pays one verification, like sign-in.
    if (!(await this.hasher.matches(current, user.passwordHash))) throw fail('wrong_password')
    const hash = await this.hasher.hash(next)
    const now = this.d.clock.now().getTime()
    const changed = await this.d.store.unit(async () => {
      // A reset or another change that landed while this one hashed has ended this session: the
      // write is conditional on the version read before hashing, so of two at once one wins.
      if (!(await this.d.repo.replacePassword(userId, hash, now, user.tokenVersion))) {
        throw fail('unauthorized', 'This session has ended. Sign in again.')
      }
      await this.d.repo.spendEmailTokens(userId, 'reset_password', now)
      await this.d.events.publish({
        type: 'auth.password_changed',
        workspaceId: user.workspaceId,
        payload: {
          actor: userActor(userId, caller),
          target: { type: 'user', id: userId },
        },
      })
      return (await this.d.repo.user(userId))!
    })
    return this.signIn.mint(changed, cls, via)
  }
}
