// The keyring the object store asks (platform/storage/envelope-store): per workspace, whether its
// content may be read, a fresh data key for each object it writes, and the data key of an object it
// reads. Key settings are read through a memo kept by the workspace's security revision (every
// change of the key moves it on): on SQLite until the next commit; on PostgreSQL while the revision
// this process's latest auth read of the workspace found is the one they were read at (outside a
// request, until the next commit told), so a key disabled by PUT on any replica is refused from the
// very next request; unwrapped data keys are cached briefly, bounded, and dropped at once when their
// workspace's key is disabled.
import type { Clock } from '../../platform/clock/clock'
import type { Store } from '../../platform/db/store'
import { RevisionMemo } from '../../platform/db/store-memo'
import { errorTable, fail } from '../../platform/errors/errors'
import type { DataKey, Keyring } from '../../platform/storage/envelope-store'
import type { WorkspacesService } from '../workspaces/workspaces.service'
import { type AwsKeys, KmsRefused } from './kms.aws'
import type { LocalKeys } from './kms.local'
import type { KeyRow, KmsRepo } from './kms.repo'

/** Unwrapped data keys kept at most; beyond it the oldest go. */
const MAX_CACHED = 10_000
/**
 * After the KMS refused a workspace's key, how long every read of the workspace is refused without
 * asking it again (answers from warm memory included); the first read after it tries the KMS anew.
 */
export const REFUSAL_HOLD_MS = 30_000

interface Cached {
  workspaceId: string
  key: Uint8Array
  until: number
}

/** What the keyring is built from. */
export interface KeyringDeps {
  store: Store
  repo: KmsRepo
  clock: Clock
  local: LocalKeys
  aws: AwsKeys
  /** How long an unwrapped data key is reused, in seconds (`kms.data_key_cache_seconds`). */
  cacheSeconds: number
  /** The security revision of a workspace the request's auth read found (the keyring is not handed the principal). */
  workspaces: Pick<WorkspacesService, 'securityRevSeen'>
}

/** The kms feature's answer to the object store: keys per workspace, refusals when disabled. */
export class KmsKeyring implements Keyring {
  private readonly rows: RevisionMemo<KeyRow | null>
  private readonly cache = new Map<string, Cached>()
  /** Workspaces whose key the KMS refused: until when, and its error name. */
  private readonly refused = new Map<string, { until: number; reason: string }>()

  constructor(private readonly d: KeyringDeps) {
    this.rows = new RevisionMemo(d.store, async (ws) => (await d.repo.get(ws)) ?? null, {
      unversioned: 'memo',
    })
  }

  /** The workspace's key settings as of its security revision this request read; null when it has no key. */
  async row(workspaceId: string): Promise<KeyRow | null> {
    return (await this.rows.get(workspaceId, this.d.workspaces.securityRevSeen(workspaceId))) ?? null
  }

  /** Throws when the workspace's key is disabled or the KMS refused it a moment ago (the memo's row: no query between commits). */
  async assertReadable(workspaceId: string): Promise<void> {
    this.refuseUnreadable(workspaceId, await this.row(workspaceId))
  }

  /** Throws when the workspace's key is disabled or the KMS refused it a moment ago. */
  private refuseUnreadable(workspaceId: string, row: KeyRow | null): void {
    if (!row) return
    if (!row.enabled) {
      this.dropKeys(workspaceId)
      throw fail('encryption_key_unavailable')
    }
    const held = this.refused.get(workspaceId)
    if (held && held.until > this.d.clock.now().getTime()) throw refusal(held.reason)
  }

  async dataKey(workspaceId: string): Promise<DataKey | null> {
    const row = await this.row(workspaceId)
    if (!row) return null
    this.refuseUnreadable(workspaceId, row)
    return this.refusing(workspaceId, async () =>
      row.provider === 'local'
        ? this.d.local.generate(workspaceId, row.localKeys ?? '[]')
        : await this.d.aws.generate(workspaceId, row),
    )
  }

  async unwrap(workspaceId: string, wrapped: Uint8Array): Promise<Uint8Array> {
    const row = await this.row(workspaceId)
    this.refuseUnreadable(workspaceId, row)
    const id = `${workspaceId}:${Buffer.from(wrapped).toString('base64')}`
    const now = this.d.clock.now().getTime()
    const hit = this.cache.get(id)
    if (hit && hit.until > now) return hit.key
    if (hit) this.cache.delete(id)
    if (!row)
      throw fail(
        'encryption_key_unavailable',
        'An object of this workspace is sealed, but the workspace has no key.',
      )
    const key = await this.refusing(workspaceId, async () =>
      row.provider === 'local'
        ? this.d.local.unwrap(workspaceId, row.localKeys ?? '[]', wrapped)
        : await this.d.aws.unwrap(workspaceId, row, wrapped),
    )
    if (this.d.cacheSeconds > 0) {
      if (this.cache.size >= MAX_CACHED) this.cache.delete(this.cache.keys().next().value!)
      this.cache.set(id, { workspaceId, key, until: now + this.d.cacheSeconds * 1000 })
    }
    return key
  }

  /** What the KMS answered when it last refused the workspace's key (in this process), until it serves it again. */
  kmsError(workspaceId: string): string | null {
    return this.refused.get(workspaceId)?.reason ?? null
  }

  /** Forgets what is held of the workspace's key (saved, turned off, rotated): cached data keys, a refusal. */
  forget(workspaceId: string): void {
    this.dropKeys(workspaceId)
    this.refused.delete(workspaceId)
  }

  private dropKeys(workspaceId: string): void {
    for (const [id, c] of this.cache) if (c.workspaceId === workspaceId) this.cache.delete(id)
  }

  /**
   * Runs a provider call; a refusal becomes the one API error. A KMS refusal (the key disabled,
   * gone, denied, or the KMS unreachable) also holds the whole workspace refused for a while.
   */
  private async refusing<T>(workspaceId: string, fn: () => Promise<T>): Promise<T> {
    try {
      const out = await fn()
      this.refused.delete(workspaceId)
      return out
    } catch (e) {
      this.dropKeys(workspaceId)
      const why = e instanceof KmsRefused ? e.reason : (e as Error).name
      if (e instanceof KmsRefused) {
        this.refused.set(workspaceId, { until: this.d.clock.now().getTime() + REFUSAL_HOLD_MS, reason: why })
      }
      throw refusal(why)
    }
  }
}

/** 409 `encryption_key_unavailable`, naming what the KMS answered. */
function refusal(reason: string) {
  return fail(
    'encryption_key_unavailable',
    `${errorTable.encryption_key_unavailable.message} (The KMS answered ${reason}.)`,
  )
}
