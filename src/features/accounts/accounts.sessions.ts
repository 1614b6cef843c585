// The session half of the accounts service (checking and refreshing session tokens), kept apart
// from sign-up and passwords so each file stays small; it shares the accounts tables and rules.
import type { Static } from '@sinclair/typebox'
import type { Authenticator, Principal } from '../../platform/auth/principal'
import { type Clock, iso } from '../../platform/clock/clock'
import type { SessionClaims, SessionClass, SessionTokens } from '../../platform/crypto/token'
import type { Store } from '../../platform/db/store'
import { StoreMemo } from '../../platform/db/store-memo'
import { type ApiError, fail } from '../../platform/errors/errors'
import type { WorkspacesService } from '../workspaces/workspaces.service'
import type { AccountsRepo, SessionRow } from './accounts.repo'
import type { SessionResp } from './accounts.schemas'
import type { SsoPolicy } from './accounts.sso'

/** Resolves API keys (`ek_...`) to principals; implemented by the keys feature. */
export type KeyAuthenticator = (secret: string) => Promise<Principal>

const BEARER = /^Bearer[ \t]+([^\s]+)[ \t]*$/i

/** A 401 that tells clients which scheme to use. */
export function unauthorized(message: string): ApiError {
  return fail('unauthorized', message, undefined, { 'www-authenticate': 'Bearer' })
}

/** The bearer token of a request, or a 401 when there is none. */
export function bearerToken(request: Request): string {
  const header = request.headers.get('authorization')
  if (!header) throw unauthorized('Not authenticated.')
  const m = BEARER.exec(header)
  if (!m) throw unauthorized('The Authorization header must be "Bearer <token>".')
  return m[1]!
}

/**
 * Checks session tokens on every request: signature, lifetime and absolute cap, then the user's
 * current state in one prepared lookup (token version, deactivation, suspension, verification, the
 * workspace's security revision), so a password reset, a removal or a suspension takes effect on
 * the very next request, on every replica: on PostgreSQL the lookup runs on every request (another
 * process's commit is only seen when its notification comes); on SQLite its row is kept until the
 * next commit to the database (`StoreMemo`; one process, the commit watch is exact).
 */
export class SessionService {
  private readonly read: (userId: string) => Promise<SessionRow | undefined>
  /** User rows by id on SQLite; null on PostgreSQL (read through). */
  private readonly users: StoreMemo<SessionRow> | null

  constructor(
    store: Store,
    repo: AccountsRepo,
    private readonly clock: Clock,
    private readonly tokens: SessionTokens,
    private readonly sso: SsoPolicy,
    /**
     * A session of a suspended workspace is refused: its status and security revision are the
     * workspaces feature's columns in the user's own read, and the revision read is told back to it.
     */
    private readonly workspaces: Pick<WorkspacesService, 'accessColumns' | 'noteSecurityRev'>,
  ) {
    this.read = repo.sessionRead((id) => workspaces.accessColumns(id))
    this.users = store.dialect === 'sqlite' ? new StoreMemo(store, this.read) : null
  }

  /** The principal of a live session token, or the refusal that applies. */
  async authenticate(token: string): Promise<Principal> {
    const claims = this.claims(token)
    const row = this.users ? await this.users.get(claims.sub) : await this.read(claims.sub)
    if (!row || row.workspaceId !== claims.wid || row.tokenVersion !== claims.ver) {
      throw unauthorized('This session has ended. Sign in again.')
    }
    if (row.status !== 'active') throw fail('account_disabled')
    if (row.workspaceStatus !== 'active') throw fail('workspace_suspended')
    if (row.emailVerifiedAt === null) throw fail('email_not_verified')
    const securityRev = row.securityRev ?? 0
    this.workspaces.noteSecurityRev(row.workspaceId, securityRev)
    if (await this.sso.sessionEnded(claims.wid, claims.via ?? 'password', claims.sat, securityRev)) {
      throw unauthorized('This session has ended: the workspace now signs in through single sign-on.')
    }
    return {
      kind: 'session',
      workspaceId: row.workspaceId,
      userId: claims.sub,
      role: row.role,
      scopes: null,
      keyId: null,
      corpusIds: null,
      securityRev,
    }
  }

  /**
   * `POST /auth/refresh`: a token past half its life becomes a fresh one of the same class, never
   * beyond the absolute cap from the original sign-in; an earlier call keeps the token unchanged.
   */
  refresh(token: string): Static<typeof SessionResp> {
    const claims = this.claims(token)
    const now = this.nowSec()
    let out = { token, claims, refreshed: false }
    if (this.tokens.shouldRefresh(claims, now)) {
      const fresh = this.tokens.issue(
        { userId: claims.sub, workspaceId: claims.wid, tokenVersion: claims.ver },
        claims.cls,
        now,
        claims.sat,
        claims.via,
      )
      out = { ...fresh, refreshed: true }
    }
    return {
      access_token: out.token,
      token_type: 'bearer',
      expires_at: iso(new Date(out.claims.exp * 1000)),
      email_verified: true,
      refreshed: out.refreshed,
      session_class: out.claims.cls,
    }
  }

  /** The class (`normal` or `remember`) of a live session token. */
  sessionClass(token: string): SessionClass {
    return this.claims(token).cls
  }

  /** How the user of a live session token signed in (`password` for tokens that do not say). */
  signedInVia(token: string): string {
    return this.claims(token).via ?? 'password'
  }

  private claims(token: string): SessionClaims {
    const claims = this.tokens.read(token)
    if (!claims) throw unauthorized('Invalid credential.')
    if (!this.tokens.isLive(claims, this.nowSec())) throw unauthorized('Session expired. Sign in again.')
    return claims
  }

  private nowSec(): number {
    return Math.floor(this.clock.now().getTime() / 1000)
  }
}

/** The request authenticator: `ek_` tokens are API keys, anything else a session token. */
export function createAuthenticator(sessions: SessionService, keys: KeyAuthenticator): Authenticator {
  return async (request) => {
    const token = bearerToken(request)
    return token.startsWith('ek_') ? await keys(token) : await sessions.authenticate(token)
  }
}
