// The domain events features emit and subscribe to. The names and payloads are declared here, in
// one table, so an emitter and its subscribers agree on a shape the type checker holds them to,
// and platform code (the outbox, the dispatcher) can carry them without knowing any feature.
// Payloads hold ids and the few facts a subscriber needs, never whole rows: a subscriber that
// wants more reads it through the owning feature's service.

import type { Actor } from '../auth/principal'

/**
 * The facts of a security-relevant action, as the audit log keeps them: who did it (with the
 * address and request id), on what, and what else a reviewer needs (never a secret).
 */
export interface ActionFacts {
  actor: Actor
  target?: { type: string; id: string } | null
  details?: Record<string, unknown>
}

/**
 * Security-relevant actions told as they are (payload `ActionFacts`): the audit log writes one row
 * for each, its action the event's type (docs/governance.md, "Adding an audited action"). A new one
 * is a line here and an `emit` in the transaction of the change.
 */
export const ACTION_EVENTS = [
  'auth.sign_in',
  'auth.sign_in_failed',
  'auth.password_changed',
  'auth.recovery_code_used',
  'identity.linked',
  'sso.configured',
  'sso.deleted',
  'sso.recovery_codes_issued',
  'sso.member_joined',
  'member.invited',
  'member.invite_revoked',
  'source.created',
  'source.updated',
  'source.deleted',
  'workspace.renamed',
  // A base's settings changed by a person or a key (PATCH /corpora/{id}): the fields, from and to.
  'corpus.settings_changed',
  'audit.exported',
  'usage.exported',
  // Webhook endpoints (src/features/webhooks): `webhook.disabled` is the system's, after failures.
  'webhook.created',
  'webhook.deleted',
  'webhook.enabled',
  'webhook.disabled',
  'webhook.secret_rotated',
  // The workspace IP allowlist (src/features/allowlist): saved, and a request it refused.
  'ip_allowlist.updated',
  'ip_allowlist.refused',
  // The workspace's customer-managed key (src/features/kms): saved (set, turned off or on), rotated.
  'kms_key.updated',
  'kms_key.rotated',
  // A workspace admin accepted a version of a legal document (src/features/legal).
  'legal.accepted',
  // A workspace moved to another plan (src/features/plans): by the operator's `engram plan set`.
  'plan.changed',
] as const

/** The type of an event whose payload is `ActionFacts`. */
export type ActionEventType = (typeof ACTION_EVENTS)[number]

type ActionEvents = { [K in ActionEventType]: ActionFacts }

/** Who deleted and how, carried by deletion events for the receipt (absent in events before receipts moved to the outbox). */
export interface DeletionFacts {
  actor?: Actor
  /** The receipt's details (`filename`, `rows`, `via`, `build_running`, ...; docs/ingest.md, "Deletion"). */
  receipt?: Record<string, unknown>
}

/** Every event type and its payload. */
export interface DomainEvents extends ActionEvents {
  'document.created': { corpusId: string; documentId: string }
  'document.updated': { corpusId: string; documentId: string }
  'document.deleted': { corpusId: string; documentId: string } & DeletionFacts
  /** A document onboarded: it answers questions now (each time its content is onboarded again too). */
  'document.ready': { corpusId: string; documentId: string }
  /** A document that could not be extracted or onboarded; `error` is the reason the user sees. */
  'document.failed': { corpusId: string; documentId: string; error: string }
  /** A document's original file was downloaded (`GET .../documents/{id}/raw`): by whom, for the audit log. */
  'document.downloaded': {
    corpusId: string
    documentId: string
    filename: string
    size: number
    actor: Actor
  }
  /** A whole base deleted (one event, not one per document); `documents` is how many it held. */
  'corpus.deleted': { corpusId: string; documents: number } & DeletionFacts
  'onboarding.started': { runId: string; corpusId: string }
  'onboarding.finished': { runId: string; corpusId: string }
  'onboarding.failed': { runId: string; corpusId: string; error: string }
  'onboarding.cancelled': { runId: string; corpusId: string }
  /** A sync run ended (every document of it extracted or failed): an upload, a push, later a connector. */
  'sync.finished': {
    corpusId: string
    runId: string
    source: string
    status: 'succeeded' | 'partial' | 'failed' | 'canceled'
    created: number
    updated: number
    deleted: number
    failed: number
  }
  'key.created': {
    keyId: string
    name: string
    prefix: string
    scopes: string[]
    /** The bases the key is bound to; null (or absent in older events): every base. */
    corpusIds?: string[] | null
    actor: Actor
  }
  'key.revoked': { keyId: string; name: string; prefix: string; actor: Actor }
  'member.joined': { userId: string; role: string; inviteId: string }
  /** A role change; `email` and `from` are the member's as they were, for the audit row. */
  'member.changed': { userId: string; email: string; from: string; role: string; actor: Actor }
  /** `email` and `role` as they were when the member was removed (the row is gone). */
  'member.removed': { userId: string; email: string; role: string; actor: Actor }
  /**
   * A question answered from a base (declined ones too: they were asked); `keyId` when asked with a
   * key. `origin` says who asked: people and their applications, or the load the scale test and the
   * compare and economics pages make to measure the strategies (absent in events before it: people).
   */
  'question.answered': {
    corpusId: string
    strategy: 'cart' | 'rag'
    answered: boolean
    keyId: string | null
    origin?: QuestionOrigin
  }
  'settings.changed': { keys: string[]; actor: Actor }
  /** A connection's credentials added, changed (`secrets`: the secret fields written) or deleted. */
  'connection.created': { connectionId: string; kind: string; name: string; actor: Actor }
  'connection.updated': {
    connectionId: string
    kind: string
    name: string
    secrets: string[]
    actor: Actor
  }
  'connection.deleted': { connectionId: string; kind: string; name: string; actor: Actor }
}

export type EventType = keyof DomainEvents

/** Who asked a question: `person` (the console, the API, MCP), or measuring load. */
export type QuestionOrigin = 'person' | 'scale_test' | 'compare'

/** What an emitter hands over: the type, the workspace it happened in and the payload. */
export type NewEvent<T extends EventType = EventType> = {
  [K in T]: { type: K; workspaceId: string; payload: DomainEvents[K] }
}[T]

/** An event as the outbox stored it, as subscribers receive it. */
export type DomainEvent<T extends EventType = EventType> = {
  [K in T]: {
    /** Stable across redeliveries: a subscriber keys what it writes by it to be idempotent. */
    id: string
    type: K
    workspaceId: string
    payload: DomainEvents[K]
    /** When the change committed (ms since the epoch, from the injected clock). */
    occurredAt: number
  }
}[T]
