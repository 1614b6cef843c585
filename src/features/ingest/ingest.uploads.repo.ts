import type { Db } from '../../platform/db/db'
import type { ingestUploads } from './ingest.tables'

/** A push upload waiting for its commit (`SELECT ${UPLOAD_COLUMNS}`: the columns under the table's JS keys). */
export type UploadRow = typeof ingestUploads.$inferSelect

/** The columns of an `ingest_uploads` row under their JS keys (ingest.tables.ts). */
const UPLOAD_COLUMNS = `id, workspace_id AS workspaceId, corpus_id AS corpusId, sha256, size, object_key AS objectKey,
  verified, created_at AS createdAt, expires_at AS expiresAt`

/**
 * Data functions of pending push uploads: content sent (presigned or through the raw route) that
 * waits for its commit, or for the sweep once it expires.
 */
export class UploadsRepo {
  constructor(private readonly db: Db) {}

  private get c() {
    return this.db.$client
  }

  /** Records a pending push upload. */
  insertUpload(u: {
    id: string
    workspaceId: string
    corpusId: string
    sha256: string
    size: number
    key: string
    verified: boolean
    now: number
    expiresAt: number
  }): void {
    this.c
      .query(
        `INSERT INTO ingest_uploads (id, workspace_id, corpus_id, sha256, size, object_key, verified, created_at, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(u.id, u.workspaceId, u.corpusId, u.sha256, u.size, u.key, u.verified ? 1 : 0, u.now, u.expiresAt)
  }

  /**
   * Live uploads of a base for each of many contents, in one statement (the SHA-256s as one JSON
   * array parameter): by SHA-256, each list newest (and server-verified) first.
   */
  uploadsByShas(corpusId: string, shas: string[], now: number): Map<string, UploadRow[]> {
    const rows = this.c
      .query<UploadRow, [string, string, number]>(
        `SELECT ${UPLOAD_COLUMNS} FROM ingest_uploads WHERE corpus_id = ? AND sha256 IN (SELECT value FROM json_each(?))
           AND expires_at > ? ORDER BY verified DESC, created_at DESC, id DESC`,
      )
      .all(corpusId, JSON.stringify(shas), now)
    const out = new Map<string, UploadRow[]>()
    for (const r of rows) {
      const list = out.get(r.sha256)
      if (list) list.push(r)
      else out.set(r.sha256, [r])
    }
    return out
  }

  /** Forgets every upload of a base for one object key (a commit adopted the object). */
  deleteUploadsByKey(key: string): void {
    this.c.query('DELETE FROM ingest_uploads WHERE object_key = ?').run(key)
  }

  /** Whether a live upload still holds an object. */
  uploadHolds(key: string, now: number): boolean {
    return (
      this.c
        .query<{ n: number }, [string, number]>(
          'SELECT EXISTS (SELECT 1 FROM ingest_uploads WHERE object_key = ? AND expires_at > ?) AS n',
        )
        .get(key, now)?.n === 1
    )
  }

  /** Drops uploads whose commit never came; returns how many. Their objects become orphans. */
  deleteExpiredUploads(now: number): number {
    return this.c.query('DELETE FROM ingest_uploads WHERE expires_at <= ?').run(now).changes
  }
}
