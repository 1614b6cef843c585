import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'

/**
 * The audit trail: who did what to which resource, per workspace. Rows are only ever inserted; no
 * foreign key to the workspace, so the trail outlives what it describes.
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
  },
  (t) => [index('audit_events_workspace').on(t.workspaceId, t.createdAt, t.id)],
)
