import type { Static } from '@sinclair/typebox'
import { actorOf, type Principal, SCOPES, type Scope } from '../../platform/auth/principal'
import { type Clock, iso } from '../../platform/clock/clock'
import { base62, newId, type Random } from '../../platform/crypto/random'
import { secretHash } from '../../platform/crypto/token'
import type { Store } from '../../platform/db/store'
import { StoreMemo } from '../../platform/db/store-memo'
import { fail, notFound, validationFailed } from '../../platform/errors/errors'
import type { Outbox } from '../../platform/events/outbox'
import type { ListResult } from '../../platform/paging/paging'
import { keysetPage, type PageRequest } from '../../platform/paging/paging'
import type { CorporaService } from '../corpora/corpora.service'
import type { PlansService } from '../plans/plans.service'
import type { WorkspacesService } from '../workspaces/workspaces.service'
import { type ApiKeyRow, type KeyAuthRow, KeysRepo } from './keys.repo'
import type { ApiKeyCreatedResp, ApiKeyCreateReq, ApiKeyResp } from './keys.schemas'

type KeyResp = Static<typeof ApiKeyResp>

/** `ek_` + 40 base62 characters (about 238 bits); the spec asks for at least 32. */
const SECRET_CHARS = 40
const KEY_SHAPE = /^ek_[0-9A-Za-z]{32,128}$/
/** `last_used_at` is written at most this often per key, sparing a write on every request. */
const TOUCH_INTERVAL_MS = 60_000

/** Where a request came from, for the audit trail. */
export interface KeyCaller {
  ip: string
  requestId: string
}

/** The wire form of a key row (never the secret). */
export function keyResp(row: ApiKeyRow): KeyResp {
  const t = (ms: number | null) => (ms === null ? null : iso(new Date(ms)))
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    scopes: JSON.parse(row.scopes) as Scope[],
    corpus_ids: row.corpusIds === null ? null : (JSON.parse(row.corpusIds) as string[]),
    last_used_at: t(row.lastUsedAt),
    expires_at: t(row.expiresAt),
    revoked_at: t(row.revokedAt),
    created_at: iso(new Date(row.createdAt)),
  }
}

/** Tenant API keys: mint (secret shown once), list, revoke, and authenticate on every request. */
export class KeysService {
  /**
   * Key rows by secret hash on SQLite, reused only until the next commit to the database (one
   * process: the commit watch is exact); null on PostgreSQL, where every request reads its key.
   */
  private readonly rows: StoreMemo<KeyAuthRow> | null
  /** Parsed scope lists by their stored JSON; at most seven distinct values exist. */
  private readonly scopeLists = new Map<string, Scope[]>()
  private readonly repo: KeysRepo

  constructor(
    /** Key changes are units of work on it; the per-request lookup reads it through a memo. */
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly random: Random,
    /** Key changes are told as `key.created` / `key.revoked` (the audit log subscribes). */
    private readonly events: Outbox,
    /** The bases a key may be bound to are looked up there (a base of the caller's workspace). */
    private readonly corpora: Pick<CorporaService, 'exists'>,
    /** A key that works (not revoked, not expired) takes one of the plan's `api_keys`. */
    private readonly plans: Pick<PlansService, 'ensureRoom' | 'holdCap'>,
    /**
     * A key of a suspended workspace is refused: its status and security revision are the
     * workspaces feature's columns in the key's own read, and the revision read is told back to it.
     */
    private readonly workspaces: Pick<WorkspacesService, 'accessColumns' | 'noteSecurityRev'>,
  ) {
    const repo = new KeysRepo(store, (id) => workspaces.accessColumns(id))
    this.repo = repo
    this.rows = store.dialect === 'sqlite' ? new StoreMemo(store, (hash) => repo.bySecretHash(hash)) : null
  }

  /** `POST /api-keys`: a new key; the response is the only place the secret ever appears. */
  async create(
    p: Principal,
    body: Static<typeof ApiKeyCreateReq>,
    caller: KeyCaller,
  ): Promise<Static<typeof ApiKeyCreatedResp>> {
    const now = this.clock.now().getTime()
    let expiresAt: number | null = null
    if (body.expires_at) {
      expiresAt = Date.parse(body.expires_at)
      if (!(expiresAt > now)) {
        throw validationFailed([
          { loc: ['body', 'expires_at'], msg: 'expires_at must be in the future', type: 'value_error' },
        ])
      }
    }
    const name = body.name.trim()
    if (!name) {
      throw validationFailed([
        { loc: ['body', 'name'], msg: 'String should have at least 1 character', type: 'string_too_short' },
      ])
    }
    const corpusIds = await this.boundBases(p.workspaceId, body.corpus_ids ?? null)
    const secret = `ek_${base62(this.random, SECRET_CHARS)}`
    const row: ApiKeyRow = {
      id: newId(this.random, 'key'),
      workspaceId: p.workspaceId,
      name,
      prefix: secret.slice(0, 12),
      secretHash: secretHash(secret),
      // Canonical order, duplicates dropped.
      scopes: JSON.stringify(SCOPES.filter((s) => body.scopes.includes(s))),
      corpusIds: corpusIds === null ? null : JSON.stringify(corpusIds),
      createdBy: p.userId ?? p.keyId,
      createdAt: now,
      expiresAt,
      revokedAt: null,
      lastUsedAt: null,
    }
    await this.store.unit(async () => {
      // Counted, checked and inserted in one unit: a refused one writes nothing; the cap is held
      // (units take turns on SQLite, an advisory lock on PostgreSQL), so parallel creations cannot
      // both count below it.
      await this.plans.holdCap(p.workspaceId, 'api_keys')
      const active = await this.repo.countActive(p.workspaceId, now)
      await this.plans.ensureRoom(p.workspaceId, 'api_keys', active)
      await this.repo.insert(row)
      await this.events.publish({
        type: 'key.created',
        workspaceId: p.workspaceId,
        payload: {
          keyId: row.id,
          name: row.name,
          prefix: row.prefix,
          scopes: JSON.parse(row.scopes) as string[],
          corpusIds,
          actor: actorOf(p, caller.ip, caller.requestId),
        },
      })
    })
    return { ...keyResp(row), key: secret }
  }

  /**
   * The bases a new key is bound to, checked: distinct ids, each a base of the workspace (an
   * unknown id and another workspace's answer the same 404). Null: every base.
   */
  private async boundBases(workspaceId: string, ids: readonly string[] | null): Promise<string[] | null> {
    if (ids === null) return null
    const seen = new Set<string>()
    ids.forEach((id, i) => {
      if (seen.has(id)) {
        throw validationFailed([
          { loc: ['body', 'corpus_ids', i], msg: `${id} is listed twice`, type: 'value_error' },
        ])
      }
      seen.add(id)
    })
    for (const id of ids) {
      if (!(await this.corpora.exists(workspaceId, id)))
        throw fail('not_found', `Document base not found: ${id}.`)
    }
    return [...ids]
  }

  /** `GET /api-keys`: newest first, revoked included; a page on `/v1`, everything otherwise. */
  async list(workspaceId: string, page: PageRequest | null): Promise<ListResult<KeyResp>> {
    const total = await this.repo.count(workspaceId)
    if (!page)
      return { items: (await this.repo.list(workspaceId, null, null)).map(keyResp), total, nextCursor: null }
    const rows = await this.repo.list(workspaceId, page.after, page.limit + 1)
    return keysetPage(rows, page.limit, (r) => [r.createdAt, r.id], keyResp, total)
  }

  /** `DELETE /api-keys/{id}`: sets `revoked_at` once; a repeat returns the key unchanged, no new event. */
  async revoke(p: Principal, keyId: string, caller: KeyCaller): Promise<KeyResp> {
    const now = this.clock.now().getTime()
    const row = await this.store.unit(async () => {
      const key = await this.repo.find(p.workspaceId, keyId)
      if (!key) throw notFound('API key')
      if (key.revokedAt !== null) return key
      // A conditional write: of two revocations at once (two processes, on PostgreSQL), one revokes
      // and tells it; the other answers the key as the first left it.
      if (!(await this.repo.markRevoked(key.id, now)))
        return (await this.repo.find(p.workspaceId, keyId)) ?? key
      await this.events.publish({
        type: 'key.revoked',
        workspaceId: p.workspaceId,
        payload: {
          keyId: key.id,
          name: key.name,
          prefix: key.prefix,
          actor: actorOf(p, caller.ip, caller.requestId),
        },
      })
      return { ...key, revokedAt: now }
    })
    return keyResp(row)
  }

  /** One key of a workspace as listed; another workspace's key answers 404 like a missing one. */
  async get(workspaceId: string, keyId: string): Promise<KeyResp> {
    const row = await this.repo.find(workspaceId, keyId)
    if (!row) throw notFound('API key')
    return keyResp(row)
  }

  /** Keys of a workspace that still work (for the usage report). */
  activeCount(workspaceId: string): Promise<number> {
    return this.repo.countActive(workspaceId, this.clock.now().getTime())
  }

  /**
   * The principal of a presented secret, checked against the database's current state on every
   * request, so a revocation applies to the very next one, on every replica. The key and its
   * workspace's status and security revision are one statement: on PostgreSQL read on every request
   * (another process's commit is only seen when its notification comes); on SQLite kept until the
   * next commit to the database (`StoreMemo`): no answer outlives a write. Unknown, revoked or
   * expired: 401.
   */
  async authenticate(secret: string): Promise<Principal> {
    if (!KEY_SHAPE.test(secret)) throw invalidKey('Invalid API key.')
    // A lookup by the hash of a high-entropy secret: timing reveals nothing usable about the secret.
    const hash = secretHash(secret)
    const row = this.rows ? await this.rows.get(hash) : await this.repo.bySecretHash(hash)
    if (!row) throw invalidKey('Invalid API key.')
    const { id, workspaceId, scopes: scopeJson, expiresAt, revokedAt, lastUsedAt, corpusIds: basesJson } = row
    const now = this.clock.now().getTime()
    if (revokedAt !== null) throw invalidKey('This API key has been revoked.')
    if (expiresAt !== null && expiresAt <= now) throw invalidKey('This API key has expired.')
    if (row.workspaceStatus !== 'active') throw fail('workspace_suspended')
    const securityRev = row.securityRev ?? 0
    this.workspaces.noteSecurityRev(workspaceId, securityRev)
    if (lastUsedAt === null || now - lastUsedAt >= TOUCH_INTERVAL_MS) {
      // A quiet unit of its own, at most once a period a key and process: the stamp is only shown
      // (`GET /api-keys`), so its commit need not empty every memo (keys, sessions, bases) in every
      // process. On SQLite the row the memo keeps is stamped in place instead, so this process does
      // not touch again within the period; on PostgreSQL every request reads the stamp, so the
      // fleet touches about once a period (two at once: the condition makes one a write of nothing).
      await this.store.unit(() => this.repo.touch(id, now, now - TOUCH_INTERVAL_MS), { quiet: true })
      row.lastUsedAt = now
    }
    let scopes = this.scopeLists.get(scopeJson)
    if (!scopes) {
      scopes = JSON.parse(scopeJson) as Scope[]
      this.scopeLists.set(scopeJson, scopes)
    }
    return {
      kind: 'api_key',
      workspaceId,
      userId: null,
      // Spec, Authentication 5: a key holding `admin` acts as a workspace admin, else as a member.
      role: scopes.includes('admin') ? 'admin' : 'member',
      scopes,
      keyId: id,
      // Only a bound key pays for a parse; an unbound one (the usual case) has null.
      corpusIds: basesJson === null ? null : (JSON.parse(basesJson) as string[]),
      securityRev,
    }
  }
}

function invalidKey(message: string) {
  return fail('unauthorized', message, undefined, { 'www-authenticate': 'Bearer' })
}
