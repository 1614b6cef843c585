// Who is calling, as every layer sees it: routes receive it from the authenticator, services and
// the MCP server act for it, the CLI builds one for a local workspace. Not an HTTP concept.

/** API-key scopes (spec, Authentication). Session tokens hold them all. */
export const SCOPES = ['ingest', 'query', 'admin'] as const
export type Scope = (typeof SCOPES)[number]

/** The authenticated caller, produced by the injected authenticator. */
export interface Principal {
  kind: 'session' | 'api_key'
  workspaceId: string
  userId: string | null
  role: 'admin' | 'member'
  /** Scopes of an API key; null for a session (a session is not scope-limited). */
  scopes: readonly Scope[] | null
  keyId: string | null
  /**
   * The bases (corpus ids) an API key is bound to; null when it reaches every base of its
   * workspace, as a session and an unbound key do. A bound key sees any other base as missing.
   */
  corpusIds: readonly string[] | null
  /**
   * The workspace's security revision as the request's auth read found it (docs/scale-out.md): memos
   * of the workspace's security settings (the IP allowlist, SSO enforcement) answer for this request
   * only if they were read at it. Absent when no auth read gave one (a principal the CLI builds):
   * those memos then read through on PostgreSQL.
   */
  securityRev?: number
}

/** Whether a principal reaches a base: every base unless its key is bound to some. */
export function reachesBase(p: Principal, corpusId: string): boolean {
  return p.corpusIds === null || p.corpusIds.includes(corpusId)
}

/**
 * Tells who sent a request from its credential (a session token or an API key), or throws (or
 * rejects with) the 401 that applies; mounting runs it for every route that needs a credential.
 * A promise when the credential is checked against the store; mounting awaits only a promise.
 */
export type Authenticator = (request: Request) => Principal | Promise<Principal>

/** Where a request comes from, as an access check sees it; the address is worked out when read. */
export interface Caller {
  readonly ip: string
  readonly requestId: string
  /** The matched route (`GET /v1/corpora/:corpus_id`), for the audit trail. */
  readonly route: string | null
}

/**
 * A check of a request once its principal is known (the workspace's IP allowlist), injected by the
 * composition: it throws (or rejects with) the refusal. Mounting runs it for every route that takes a credential,
 * before scopes and roles, so no route can be reached around it.
 */
export type AccessCheck = (principal: Principal, caller: Caller) => void | Promise<void>

/**
 * Who did something and from where: a caller (its user, or the API key it presented) or the system
 * (a sync acting for its source). Audit rows and domain events record the same shape.
 */
export interface Actor {
  type: 'user' | 'api_key' | 'system'
  id: string | null
  ip?: string | null
  requestId?: string | null
}

/** The actor a principal stands for: its user, or the API key it presented. */
export function actorOf(p: Principal, ip?: string, requestId?: string): Actor {
  return p.kind === 'api_key'
    ? { type: 'api_key', id: p.keyId, ip, requestId }
    : { type: 'user', id: p.userId, ip, requestId }
}
