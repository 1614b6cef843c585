import { sql } from 'drizzle-orm'
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'

/**
 * The audit trail: who did what to which resource, per workspace. Rows are only ever inserted (the
 * repo has no update or delete, and triggers refuse both on a chained row); no foreign key to the
 * workspace, so the trail outlives what it describes. Each workspace's rows form a hash chain in
 * `seq` order: a row's `hash` covers its fields and the `prev_hash` of the row before, so an
 * altered, removed or reordered row breaks every hash after it (`audit.chain.ts`).
 */
export const auditEvents = sqliteTable(
  'audit_events',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    /** `user`, `api_key` or `system`. */
    actorType: text('actor_type').notNull(),
    actorId: text('actor_id'),
    /** Dotted action name, e.g. `auth.sign_in`, `api_key.revoked`. */
    action: text('action').notNull(),
    targetType: text('target_type'),
    targetId: text('target_id'),
    /** JSON object with action-specific facts; never secrets. */
    details: text('details').notNull().default('{}'),
    ip: text('ip'),
    requestId: text('request_id'),
    createdAt: integer('created_at').notNull(),
    /** Position in the workspace's chain, from 1; null only on rows written before chaining (chained at start-up). */
    seq: integer('seq'),
    /** The `hash` of the workspace's row `seq - 1`; null for its first row. */
    prevHash: text('prev_hash'),
    /** Hex SHA-256 of the row's canonical form (`canonicalRow`), `prev_hash` included. */
    hash: text('hash'),
  },
  (t) => [
    index('audit_events_workspace').on(t.workspaceId, t.createdAt, t.id),
    // One row per position: two writers racing for the same place cannot fork a chain.
    uniqueIndex('audit_events_chain').on(t.workspaceId, t.seq),
    index('audit_events_action').on(t.workspaceId, t.action, t.seq),
    // Rows not chained yet (written before the chain existed): every append looks for them first.
    index('audit_events_unchained').on(t.workspaceId).where(sql`${t.hash} IS NULL`),
  ],
)
