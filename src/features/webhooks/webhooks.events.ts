// Which domain events a workspace's webhooks tell of, under which public type, and with what data.
// The public names are a contract with receivers: they stay put when a domain event is renamed.
// The data holds ids and the few facts a receiver acts on, in snake_case, never a secret; a
// receiver that wants more asks the API with its own key.
import type { Actor } from '../../platform/auth/principal'
import type { DomainEvent, DomainEvents } from '../../platform/events/events'

/** Every webhook event type an endpoint may subscribe to. */
export const WEBHOOK_EVENT_TYPES = [
  'document.ready',
  'document.failed',
  'document.deleted',
  'onboarding.finished',
  'onboarding.failed',
  'onboarding.cancelled',
  'sync.finished',
  'api_key.created',
  'api_key.revoked',
  'member.joined',
  'member.removed',
] as const

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number]

/** The type of the event a test send carries; receivers should accept and ignore it. */
export const TEST_EVENT_TYPE = 'webhook.test'

/** The domain event each webhook event type is made from. */
const SOURCE = {
  'document.ready': 'document.ready',
  'document.failed': 'document.failed',
  'document.deleted': 'document.deleted',
  'onboarding.finished': 'onboarding.finished',
  'onboarding.failed': 'onboarding.failed',
  'onboarding.cancelled': 'onboarding.cancelled',
  'sync.finished': 'sync.finished',
  'api_key.created': 'key.created',
  'api_key.revoked': 'key.revoked',
  'member.joined': 'member.joined',
  'member.removed': 'member.removed',
} as const satisfies Record<WebhookEventType, keyof DomainEvents>

/** The domain events the webhooks subscriber takes. */
export type Told = (typeof SOURCE)[WebhookEventType]

export const TOLD_EVENTS = [...new Set(Object.values(SOURCE))] as Told[]

/** Who acted, without the address or request id (those stay in the audit log). */
const who = (a: Actor) => ({ type: a.type, id: a.id })

/** The webhook event a domain event is told as: its public type and data. */
export function webhookEventOf(e: DomainEvent<Told>): { type: WebhookEventType; data: object } {
  switch (e.type) {
    case 'document.ready':
    case 'document.deleted':
      return { type: e.type, data: { corpus_id: e.payload.corpusId, document_id: e.payload.documentId } }
    case 'document.failed': {
      const { corpusId, documentId, error } = e.payload
      return { type: e.type, data: { corpus_id: corpusId, document_id: documentId, error } }
    }
    case 'onboarding.finished':
    case 'onboarding.cancelled':
      return { type: e.type, data: { corpus_id: e.payload.corpusId, run_id: e.payload.runId } }
    case 'onboarding.failed': {
      const { corpusId, runId, error } = e.payload
      return { type: e.type, data: { corpus_id: corpusId, run_id: runId, error } }
    }
    case 'sync.finished': {
      const { corpusId, runId, source, status, created, updated, deleted, failed } = e.payload
      const data = { corpus_id: corpusId, run_id: runId, source, status, created, updated, deleted, failed }
      return { type: e.type, data }
    }
    case 'key.created': {
      const { keyId, name, prefix, scopes, corpusIds, actor } = e.payload
      const data = { id: keyId, name, prefix, scopes, corpus_ids: corpusIds ?? null, actor: who(actor) }
      return { type: 'api_key.created', data }
    }
    case 'key.revoked': {
      const { keyId, name, prefix, actor } = e.payload
      return { type: 'api_key.revoked', data: { id: keyId, name, prefix, actor: who(actor) } }
    }
    case 'member.joined':
      return { type: e.type, data: { user_id: e.payload.userId, role: e.payload.role } }
    case 'member.removed': {
      const { userId, email, role, actor } = e.payload
      return { type: e.type, data: { user_id: userId, email, role, actor: who(actor) } }
    }
  }
}
