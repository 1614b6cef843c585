import type { Actor } from '../../platform/auth/principal'
import type { Clock } from '../../platform/clock/clock'
import { newId, type Random } from '../../platform/crypto/random'
import type { Db } from '../../platform/db/db'
import { AuditRepo } from './audit.repo'

/** The actions recorded so far; later features add theirs. */
export type AuditAction =
  | 'auth.sign_in'
  | 'auth.password_changed'
  | 'identity.linked'
  | 'api_key.created'
  | 'api_key.revoked'
  | 'member.role_changed'
  | 'member.removed'
  | 'document.deleted'
  | 'document.downloaded'
  | 'corpus.deleted'
  | 'connection.created'
  | 'connection.updated'
  | 'connection.deleted'
  | 'sso.configured'
  | 'sso.deleted'
  | 'sso.recovery_codes_issued'
  | 'sso.member_joined'
  | 'auth.recovery_code_used'

/** One event to record. */
export interface AuditEntry {
  workspaceId: string
  actor: Actor
  action: AuditAction
  target?: { type: string; id: string }
  details?: Record<string, unknown>
}

/**
 * Appends audit rows. `record` is called inside the transaction of the change it records, so both
 * land or neither; `recordOnce` by subscribers to domain events (`audit.subscribers.ts`), after the
 * change committed.
 */
export class AuditService {
  private readonly repo: AuditRepo

  constructor(
    db: Db,
    private readonly clock: Clock,
    private readonly random: Random,
  ) {
    this.repo = new AuditRepo(db)
  }

  /** Records one event. */
  record(e: AuditEntry): void {
    this.insert(newId(this.random, 'aud'), this.clock.now().getTime(), e)
  }

  /**
   * Records one event under a given id and time, once: a second call with the same id does nothing.
   * For subscribers, which may be handed one domain event twice.
   */
  recordOnce(id: string, at: number, e: AuditEntry): void {
    this.insert(id, at, e, true)
  }

  private insert(id: string, at: number, e: AuditEntry, once = false): void {
    this.repo.insert(
      {
        id,
        workspaceId: e.workspaceId,
        actorType: e.actor.type,
        actorId: e.actor.id,
        action: e.action,
        targetType: e.target?.type ?? null,
        targetId: e.target?.id ?? null,
        details: JSON.stringify(e.details ?? {}),
        ip: e.actor.ip ?? null,
        requestId: e.actor.requestId ?? null,
        createdAt: at,
      },
      once,
    )
  }
}
