// The keyring the object store asks (platform/storage/envelope-store): per workspace, whether its
// content may be read, a fresh data key for each object it writes, and the data key of an object it
// reads. Key settings are read through a memo that lasts until the next commit (any process's), so
// a key disabled by PUT is refused from the very next read; unwrapped data keys are cached briefly,
// bounded, and dropped at once when their workspace's key is disabled.
import type { Clock } from '../../platform/clock/clock'
import { CommitMemo, commitWatch } from '../../platform/db/commit-watch'
import type { Db } from '../../platform/db/db'
import { errorTable, fail } from '../../platform/errors/errors'
import type { DataKey, Keyring } from '../../platform/storage/envelope-store'
import { type AwsKeys, KmsRefused } from './kms.aws'
import type { LocalKeys } from './kms.local'
import type { KeyRow, KmsRepo } from './kms.repo'

/** Unwrapped data keys kept at most; beyond it the oldest go. */
const MAX_CACHED = 10_000

interface Cached {
  workspaceId: string
  key: Uint8Array
  until: number
}

/** What the keyring is built from. */
export interface KeyringDeps {
  db: Db
  repo: KmsRepo
  clock: Clock
  local: LocalKeys
  aws: AwsKeys
  /** How long an unwrapped data key is reused, in seconds (`kms.data_key_cache_seconds`). */
  cacheSeconds: number
}

/** The kms feature's answer to the object store: keys per workspace, refusals when disabled. */
export class KmsKeyring implements Keyring {
  private readonly rows: CommitMemo<KeyRow | null>
  private readonly cache = new Map<string, Cached>()

  constructor(private readonly d: KeyringDeps) {
    this.rows = new CommitMemo(commitWatch(d.db.$client), (ws) => d.repo.get(ws) ?? null)
  }

  /** The workspace's key settings as of the last commit; null when it has no key. */
  row(workspaceId: string): KeyRow | null {
    return this.rows.get(workspaceId) ?? null
  }

  assertReadable(workspaceId: string): void {
    const row = this.row(workspaceId)
    if (row && !row.enabled) {
      this.forget(workspaceId)
      throw fail('encryption_key_unavailable')
    }
  }

  async dataKey(workspaceId: string): Promise<DataKey | null> {
    const row = this.row(workspaceId)
    if (!row) return null
    this.assertReadable(workspaceId)
    return this.refusing(workspaceId, async () =>
      row.provider === 'local'
        ? this.d.local.generate(workspaceId, row.localKeys ?? '[]')
        : await this.d.aws.generate(workspaceId, row),
    )
  }

  async unwrap(workspaceId: string, wrapped: Uint8Array): Promise<Uint8Array> {
    this.assertReadable(workspaceId)
    const row = this.row(workspaceId)
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

  /** Drops the workspace's cached data keys (its key was disabled, rotated or refused). */
  forget(workspaceId: string): void {
    for (const [id, c] of this.cache) if (c.workspaceId === workspaceId) this.cache.delete(id)
  }

  /** Runs a provider call; a KMS refusal (or a key that does not open) becomes the one API error. */
  private async refusing<T>(workspaceId: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn()
    } catch (e) {
      this.forget(workspaceId)
      const why = e instanceof KmsRefused ? e.reason : (e as Error).name
      throw fail(
        'encryption_key_unavailable',
        `${errorTable.encryption_key_unavailable.message} (The KMS answered ${why}.)`,
      )
    }
  }
}
