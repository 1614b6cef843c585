import { and, desc, eq, gt, inArray, lte } from 'drizzle-orm'
import type { Store } from '../../platform/db/store'
import { ingestUploads } from './ingest.tables'

/** Keys one delete names: well under either engine's parameter limit. */
const KEYS_A_STATEMENT = 500

/** A push upload waiting for its commit. */
export type UploadRow = typeof ingestUploads.$inferSelect

/**
 * Data functions of pending push uploads, on the store (either engine): content sent (presigned
 * or through the raw route) that waits for its commit, or for the sweep once it expires.
 */
export class UploadsRepo {
  constructor(private readonly store: Store) {}

  private get t() {
    return this.store.table(ingestUploads)
  }

  /** Records a pending push upload; in the caller's unit. */
  async insertUpload(u: {
    id: string
    workspaceId: string
    corpusId: string
    sha256: string
    size: number
    key: string
    verified: boolean
    now: number
    expiresAt: number
  }): Promise<void> {
    await this.store.db.insert(this.t).values({
      id: u.id,
      workspaceId: u.workspaceId,
      corpusId: u.corpusId,
      sha256: u.sha256,
      size: u.size,
      objectKey: u.key,
      verified: u.verified ? 1 : 0,
      createdAt: u.now,
      expiresAt: u.expiresAt,
    })
  }

  /**
   * Live uploads of a base for each of many contents, in one statement: by SHA-256, each list
   * newest (and server-verified) first.
   */
  async uploadsByShas(corpusId: string, shas: string[], now: number): Promise<Map<string, UploadRow[]>> {
    const out = new Map<string, UploadRow[]>()
    if (shas.length === 0) return out
    const t = this.t
    const rows = await this.store.db
      .select()
      .from(t)
      .where(and(eq(t.corpusId, corpusId), inArray(t.sha256, shas), gt(t.expiresAt, now)))
      .orderBy(desc(t.verified), desc(t.createdAt), desc(t.id))
    for (const r of rows) {
      const list = out.get(r.sha256)
      if (list) list.push(r)
      else out.set(r.sha256, [r])
    }
    return out
  }

  /** Forgets every upload for these object keys (a registration adopted the objects); in its unit. */
  async deleteUploadsByKeys(keys: string[]): Promise<void> {
    for (let at = 0; at < keys.length; at += KEYS_A_STATEMENT) {
      await this.store.db
        .delete(this.t)
        .where(inArray(this.t.objectKey, keys.slice(at, at + KEYS_A_STATEMENT)))
    }
  }

  /** Whether a live upload still holds an object. */
  async uploadHolds(key: string, now: number): Promise<boolean> {
    const t = this.t
    const rows = await this.store.db
      .select({ id: t.id })
      .from(t)
      .where(and(eq(t.objectKey, key), gt(t.expiresAt, now)))
      .limit(1)
    return rows.length > 0
  }

  /** Drops uploads whose commit never came; returns how many. Their objects become orphans. */
  async deleteExpiredUploads(now: number): Promise<number> {
    const gone = await this.store.unit(() =>
      this.store.db.delete(this.t).where(lte(this.t.expiresAt, now)).returning({ id: this.t.id }),
    )
    return gone.length
  }
}
