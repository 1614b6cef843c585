import type { Subscriber } from '../../platform/events/dispatcher'
import type { DomainEvent } from '../../platform/events/events'
import type { AuditService } from './audit.service'

/** The events the audit log records from the outbox rather than inline. */
type Audited = 'key.created' | 'key.revoked'

/**
 * Writes the audit rows of key changes after they commit. The row's id is derived from the event's,
 * so a second delivery of one event (a crash between the write and its delivery record) finds the
 * row already there; its time is the event's, so the row reads as if written with the change.
 */
export function auditSubscriber(audit: AuditService): Subscriber<Audited> {
  return {
    name: 'audit',
    types: ['key.created', 'key.revoked'],
    handle: (e: DomainEvent<Audited>) => {
      const { keyId, name, prefix, actor } = e.payload
      const details = e.type === 'key.created' ? { name, prefix, scopes: e.payload.scopes } : { name, prefix }
      audit.recordOnce(auditIdOf(e.id), e.occurredAt, {
        workspaceId: e.workspaceId,
        actor,
        action: e.type === 'key.created' ? 'api_key.created' : 'api_key.revoked',
        target: { type: 'api_key', id: keyId },
        details,
      })
    },
  }
}

/** `aud_` with the random part of the event id: one audit row per event, whatever the deliveries. */
function auditIdOf(eventId: string): string {
  return `aud_${eventId.slice(eventId.indexOf('_') + 1)}`
}
