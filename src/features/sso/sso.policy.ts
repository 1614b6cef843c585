import { RevisionMemo } from '../../platform/db/store-memo'
import { type Caller, SSO_METHODS, type SsoPolicy } from '../accounts/accounts.service'
import { type PolicyRow, SsoPolicyRepo } from './sso.policy.repo'
import { recoveryCodeHash } from './sso.recovery'
import type { SsoDeps } from './sso.types'

/**
 * Enforcement as accounts asks about it: on every signed-in request (is this session ended?) and
 * at password sign-in (is a password refused? is this recovery code good?). The workspace's rows are
 * kept by its security revision (`RevisionMemo`: on SQLite until the next commit; on PostgreSQL while
 * the request's auth read finds the revision they were read at, which every change of the set-up
 * moves on), so a signed-in request pays a map lookup, and a change of the set-up applies from the
 * next request on every replica. Asked without a revision (sign-in), PostgreSQL reads them.
 */
export class SsoEnforcement implements SsoPolicy {
  private readonly rows: RevisionMemo<PolicyRow>
  private readonly repo: SsoPolicyRepo

  constructor(private readonly d: Pick<SsoDeps, 'store' | 'clock' | 'events'>) {
    const repo = new SsoPolicyRepo(d.store)
    this.repo = repo
    this.rows = new RevisionMemo(d.store, (wid) => repo.policy(wid))
  }

  available(): Promise<boolean> {
    return this.repo.anyConfigured()
  }

  async enforces(workspaceId: string): Promise<boolean> {
    return (await this.rows.get(workspaceId, undefined))?.enforce === true
  }

  /**
   * A session not made through the provider (or a recovery code) ends while the workspace enforces
   * SSO, and stays ended if it was signed in before enforcement was last turned on, even once
   * enforcement is off again: an ended session does not come back.
   */
  async sessionEnded(
    workspaceId: string,
    method: string,
    signedInAtSec: number,
    securityRev?: number,
  ): Promise<boolean> {
    if (SSO_METHODS.has(method)) return false
    const row = await this.rows.get(workspaceId, securityRev)
    if (!row) return false
    return row.enforce === true || (row.endedBefore !== null && signedInAtSec * 1000 <= row.endedBefore)
  }

  /**
   * Spends a recovery code in a unit with its audit event: a conditional write, so of two sign-ins
   * bringing the same code at once (two processes, on PostgreSQL) exactly one is let in.
   */
  spendRecoveryCode(workspaceId: string, userId: string, code: string, caller: Caller): Promise<boolean> {
    const now = this.d.clock.now().getTime()
    const hash = recoveryCodeHash(code)
    return this.d.store.unit(async () => {
      const id = await this.repo.spendRecoveryCode(workspaceId, hash, userId, now)
      if (!id) return false
      await this.d.events.publish({
        type: 'auth.recovery_code_used',
        workspaceId,
        payload: {
          actor: { type: 'user', id: userId, ip: caller.ip, requestId: caller.requestId },
          target: { type: 'user', id: userId },
          details: { recovery_code_id: id, codes_left: await this.repo.recoveryCodesLeft(workspaceId) },
        },
      })
      return true
    })
  }
}
