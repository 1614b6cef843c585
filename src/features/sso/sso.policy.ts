import { CommitMemo, commitWatch } from '../../platform/db/commit-watch'
import { transaction } from '../../platform/db/transaction'
import { type Caller, SSO_METHODS, type SsoPolicy } from '../accounts/accounts.service'
import { type PolicyRow, SsoPolicyRepo } from './sso.policy.repo'
import { recoveryCodeHash } from './sso.recovery'
import type { SsoDeps } from './sso.types'

/**
 * Enforcement as accounts asks about it: on every signed-in request (is this session ended?) and
 * at password sign-in (is a password refused? is this recovery code good?). The workspace's rows are
 * read once per commit to the database, so a signed-in request pays a map lookup.
 *
 * Synchronous on SQLite (sso.policy.repo.ts), since accounts asks without awaiting. sso's writes go
 * through the store, which on SQLite commits on the same database file: the commit watch sees them,
 * so the memo never answers from before a change of the set-up. On PostgreSQL this part is not
 * there yet; it moves with accounts (issue 39).
 */
export class SsoEnforcement implements SsoPolicy {
  private readonly rows: CommitMemo<PolicyRow>
  private readonly repo: SsoPolicyRepo

  constructor(private readonly d: Pick<SsoDeps, 'db' | 'clock' | 'events'>) {
    const repo = new SsoPolicyRepo(d.db)
    this.repo = repo
    this.rows = new CommitMemo(commitWatch(d.db.$client), (wid) => repo.policy(wid))
  }

  available(): boolean {
    return this.repo.anyConfigured()
  }

  enforces(workspaceId: string): boolean {
    return this.rows.get(workspaceId)?.enforce === true
  }

  /**
   * A session not made through the provider (or a recovery code) ends while the workspace enforces
   * SSO, and stays ended if it was signed in before enforcement was last turned on, even once
   * enforcement is off again: an ended session does not come back.
   */
  sessionEnded(workspaceId: string, method: string, signedInAtSec: number): boolean {
    if (SSO_METHODS.has(method)) return false
    const row = this.rows.get(workspaceId)
    if (!row) return false
    return row.enforce === true || (row.endedBefore !== null && signedInAtSec * 1000 <= row.endedBefore)
  }

  spendRecoveryCode(workspaceId: string, userId: string, code: string, caller: Caller): boolean {
    const now = this.d.clock.now().getTime()
    return transaction(this.d.db, () => {
      const id = this.repo.spendRecoveryCode(workspaceId, recoveryCodeHash(code), userId, now)
      if (!id) return false
      this.d.events.emit(this.d.db, {
        type: 'auth.recovery_code_used',
        workspaceId,
        payload: {
          actor: { type: 'user', id: userId, ip: caller.ip, requestId: caller.requestId },
          target: { type: 'user', id: userId },
          details: { recovery_code_id: id, codes_left: this.repo.recoveryCodesLeft(workspaceId) },
        },
      })
      return true
    })
  }
}
