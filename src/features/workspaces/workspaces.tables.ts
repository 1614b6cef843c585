import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'

/** Workspaces (tenants). Every tenant-owned row carries one of these ids. */
export const workspaces = sqliteTable('workspaces', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  /** Plan identifier: `beta` (invite sign-up), the configured default plan (open sign-up), or a paid tier. */
  plan: text('plan').notNull(),
  /** A suspended workspace refuses every credential until an operator reactivates it. */
  status: text('status', { enum: ['active', 'suspended'] })
    .notNull()
    .default('active'),
  /**
   * Moved on by every unit that changes a row deciding access to the workspace (SSO enforcement, the IP
   * allowlist, the KMS key), so replicas keep memos of those rows only while it is the one they read.
   */
  securityRev: integer('security_rev').notNull().default(0),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
})
