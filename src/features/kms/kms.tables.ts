import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { workspaces } from '../workspaces/workspaces.tables'

/**
 * A workspace's customer-managed key (one row at most). No row: the workspace's objects are stored
 * plain. With a row, every object it writes is sealed under a data key wrapped by this key, and
 * while `enabled` is false none of its content is read or written (docs/encryption.md).
 */
export const workspaceKeys = sqliteTable('workspace_keys', {
  workspaceId: text('workspace_id')
    .primaryKey()
    .references(() => workspaces.id, { onDelete: 'cascade' }),
  /** `local` (a key Engram holds, sealed under the server secret) or `aws-kms`. */
  provider: text('provider', { enum: ['local', 'aws-kms'] }).notNull(),
  /** The KMS key id, ARN or alias; for `local`, the id Engram gave its key. */
  keyId: text('key_id').notNull(),
  /** The KMS endpoint (an on-prem KMS speaking the AWS API); null: AWS's own for the region. */
  endpoint: text('endpoint'),
  region: text('region'),
  enabled: integer('enabled', { mode: 'boolean' }).notNull(),
  /**
   * `local` only: JSON array of `{ version, sealed }`, each a 32-byte key sealed under the server
   * secret; the highest version wraps new data keys, older ones only open objects that still name
   * them (an upload in flight during a rotation).
   */
  localKeys: text('local_keys'),
  /** When the last rotation finished re-wrapping every object; null before any. */
  rotatedAt: integer('rotated_at'),
  /** The background pass running over the workspace's objects, if any: `encrypt` or `rotate`. */
  pass: text('pass', { enum: ['encrypt', 'rotate'] }),
  /** As the last finished pass counted them: objects sealed under this key, and still plain. */
  encryptedObjects: integer('encrypted_objects').notNull().default(0),
  plaintextObjects: integer('plaintext_objects').notNull().default(0),
  countedAt: integer('counted_at'),
  updatedBy: text('updated_by'),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
})
