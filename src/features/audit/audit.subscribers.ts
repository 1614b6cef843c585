import type { Subscriber } from '../../platform/events/dispatcher'
import { ACTION_EVENTS, type ActionEventType, type DomainEvent } from '../../platform/events/events'
import type { AuditEntry, AuditService } from './audit.service'

/** The events told for other subscribers too, whose audit rows are built here. */
const OWN_SHAPES = [
  'document.downloaded',
  'document.deleted',
  'corpus.deleted',
  'key.created',
  'key.revoked',
  'member.joined',
  'member.changed',
  'member.removed',
  'connection.created',
  'connection.updated',
  'connection.deleted',
  'settings.changed',
] as const

type Audited = ActionEventType | (typeof OWN_SHAPES)[number]

/**
 * The one way audit rows are written: one row for each audited domain event, appended to its
 * workspace's hash chain. Transactional: the row, its place in the chain and the record of the
 * delivery commit together, so each event gives exactly one row, and the dispatcher's one delivery
 * at a time per workspace, in the events' order, keeps the chain in the order things happened. The
 * row's time is the event's (the change's commit) and its id derives from the event's.
 */
export function auditSubscriber(audit: AuditService): Subscriber<Audited> {
  return {
    name: 'audit',
    types: [...ACTION_EVENTS, ...OWN_SHAPES],
    transactional: true,
    handle: async (e: DomainEvent<Audited>) => {
      const entry = entryOf(e)
      if (entry) await audit.append(auditIdOf(e.id), e.occurredAt, entry)
    },
  }
}

const isAction = (e: DomainEvent<Audited>): e is DomainEvent<ActionEventType> =>
  (ACTION_EVENTS as readonly string[]).includes(e.type)

/** The audit row an event stands for; null for a deletion told before receipts came through events. */
function entryOf(e: DomainEvent<Audited>): AuditEntry | null {
  const { workspaceId } = e
  if (isAction(e)) {
    const { actor, target, details } = e.payload
    return { workspaceId, actor, action: e.type, target: target ?? null, details: details ?? {} }
  }
  const own = e as DomainEvent<(typeof OWN_SHAPES)[number]>
  switch (own.type) {
    case 'document.downloaded': {
      const { corpusId, documentId, filename, size, actor } = own.payload
      const details = { corpus_id: corpusId, filename, size }
      return { workspaceId, actor, action: own.type, target: { type: 'document', id: documentId }, details }
    }
    case 'document.deleted': {
      // Before receipts were told here, the delete wrote its receipt itself: nothing to add.
      const { corpusId, documentId, actor, receipt } = own.payload
      if (!actor) return null
      const details = { corpus_id: corpusId, ...receipt }
      return { workspaceId, actor, action: own.type, target: { type: 'document', id: documentId }, details }
    }
    case 'corpus.deleted': {
      const { corpusId, documents, actor, receipt } = own.payload
      if (!actor) return null
      const details = { ...receipt, documents }
      return { workspaceId, actor, action: own.type, target: { type: 'corpus', id: corpusId }, details }
    }
    case 'key.created':
    case 'key.revoked': {
      const { keyId, name, prefix, actor } = own.payload
      return {
        workspaceId,
        actor,
        action: own.type === 'key.created' ? 'api_key.created' : 'api_key.revoked',
        target: { type: 'api_key', id: keyId },
        details: own.type === 'key.created' ? keyCreated(own.payload) : { name, prefix },
      }
    }
    default:
      return peopleEntry(workspaceId, own)
  }
}

/** The rows of membership, connection and settings events. */
function peopleEntry(
  workspaceId: string,
  own: DomainEvent<
    | 'member.joined'
    | 'member.changed'
    | 'member.removed'
    | 'settings.changed'
    | `connection.${'created' | 'updated' | 'deleted'}`
  >,
): AuditEntry {
  switch (own.type) {
    case 'member.joined': {
      // The invitee accepted: they act for themselves (the request's address is not in the event).
      const { userId, role, inviteId } = own.payload
      const actor = { type: 'user' as const, id: userId }
      const details = { role, invite_id: inviteId }
      return { workspaceId, actor, action: own.type, target: { type: 'user', id: userId }, details }
    }
    case 'member.changed': {
      const { userId, email, from, role, actor } = own.payload
      const details = { email, from, to: role }
      return {
        workspaceId,
        actor,
        action: 'member.role_changed',
        target: { type: 'user', id: userId },
        details,
      }
    }
    case 'member.removed': {
      const { userId, email, role, actor } = own.payload
      return {
        workspaceId,
        actor,
        action: own.type,
        target: { type: 'user', id: userId },
        details: { email, role },
      }
    }
    case 'connection.created':
    case 'connection.updated':
    case 'connection.deleted': {
      const { connectionId, kind, name, actor } = own.payload
      // Which secret fields were written, never their values.
      const secrets = own.type === 'connection.updated' ? { secrets: own.payload.secrets } : {}
      const details = { kind, name, ...secrets }
      return {
        workspaceId,
        actor,
        action: own.type,
        target: { type: 'connection', id: connectionId },
        details,
      }
    }
    case 'settings.changed': {
      const { keys, actor } = own.payload
      return { workspaceId, actor, action: own.type, target: null, details: { keys } }
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
