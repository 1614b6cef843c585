import type { Subscriber } from '../../platform/events/dispatcher'
import type { DomainEvent } from '../../platform/events/events'
import type { AuditEntry, AuditService } from './audit.service'

/** The events the audit log records from the outbox rather than inline. */
type Audited =
  | 'document.downloaded'
  | 'key.created'
  | 'key.revoked'
  | 'member.changed'
  | 'member.removed'
  | 'connection.created'
  | 'connection.updated'
  | 'connection.deleted'

/**
 * Writes the audit rows of downloads of documents' files, and of key, membership and connection
 * changes, after they commit. The row's id is derived
 * from the event's, so a second delivery of one event (a crash between the write and its delivery
 * record) finds the row already there; its time is the event's, so the row reads as if written with
 * the change.
 */
export function auditSubscriber(audit: AuditService): Subscriber<Audited> {
  return {
    name: 'audit',
    types: [
      'document.downloaded',
      'key.created',
      'key.revoked',
      'member.changed',
      'member.removed',
      'connection.created',
      'connection.updated',
      'connection.deleted',
    ],
    handle: (e: DomainEvent<Audited>) => audit.recordOnce(auditIdOf(e.id), e.occurredAt, entryOf(e)),
  }
}

/** The audit row an event stands for: the same action, target and details the change wrote inline before. */
function entryOf(e: DomainEvent<Audited>): AuditEntry {
  const { workspaceId } = e
  switch (e.type) {
    case 'document.downloaded': {
      const { corpusId, documentId, filename, size, actor } = e.payload
      return {
        workspaceId,
        actor,
        action: 'document.downloaded',
        target: { type: 'document', id: documentId },
        details: { corpus_id: corpusId, filename, size },
      }
    }
    case 'key.created':
    case 'key.revoked': {
      const { keyId, name, prefix, actor } = e.payload
      return {
        workspaceId,
        actor,
        action: e.type === 'key.created' ? 'api_key.created' : 'api_key.revoked',
        target: { type: 'api_key', id: keyId },
        details: e.type === 'key.created' ? keyCreated(e.payload) : { name, prefix },
      }
    }
    case 'member.changed': {
      const { userId, email, from, role, actor } = e.payload
      return {
        workspaceId,
        actor,
        action: 'member.role_changed',
        target: { type: 'user', id: userId },
        details: { email, from, to: role },
      }
    }
    case 'connection.created':
    case 'connection.updated':
    case 'connection.deleted': {
      const { connectionId, kind, name, actor } = e.payload
      // Which secret fields were written, never their values.
      const secrets = e.type === 'connection.updated' ? { secrets: e.payload.secrets } : {}
      return {
        workspaceId,
        actor,
        action: e.type,
        target: { type: 'connection', id: connectionId },
        details: { kind, name, ...secrets },
      }
    }
    case 'member.removed': {
      const { userId, email, role, actor } = e.payload
      return {
        workspaceId,
        actor,
        action: 'member.removed',
        target: { type: 'user', id: userId },
        details: { email, role },
      }
    }
  }
}

/** `aud_` with the random part of the event id: one audit row per event, whatever the deliveries. */
function auditIdOf(eventId: string): string {
  return `aud_${eventId.slice(eventId.indexOf('_') + 1)}`
}

/** What the audit keeps of a minted key: its name, prefix and scopes, and its bases when bound. */
function keyCreated(p: DomainEvent<'key.created'>['payload']): Record<string, unknown> {
  const bound = p.corpusIds ? { corpus_ids: p.corpusIds } : {}
  return { name: p.name, prefix: p.prefix, scopes: p.scopes, ...bound }
}
