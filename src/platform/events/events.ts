// The domain events features emit and subscribe to. The names and payloads are declared here, in
// one table, so an emitter and its subscribers agree on a shape the type checker holds them to,
// and platform code (the outbox, the dispatcher) can carry them without knowing any feature.
// Payloads hold ids and the few facts a subscriber needs, never whole rows: a subscriber that
// wants more reads it through the owning feature's service.

import type { Actor } from '../auth/principal'

/** Every event type and its payload. */
export interface DomainEvents {
  'document.created': { corpusId: string; documentId: string }
  'document.updated': { corpusId: string; documentId: string }
  'document.deleted': { corpusId: string; documentId: string }
  /** A document's original file was downloaded (`GET .../documents/{id}/raw`): by whom, for the audit log. */
  'document.downloaded': {
    corpusId: string
    documentId: string
    filename: string
    size: number
    actor: Actor
  }
  /** A whole base deleted (one event, not one per document); `documents` is how many it held. */
  'corpus.deleted': { corpusId: string; documents: number }
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
  /** The workspace IP allowlist saved (src/features/allowlist), and a request it refused. */
  'ip_allowlist.updated': ActionFacts
  'ip_allowlist.refused': ActionFacts
}

/** Who did what to what, with what else a reviewer needs (never a secret). */
export interface ActionFacts {
  actor: Actor
  target?: { type: string; id: string } | null
  details?: Record<string, unknown>
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
