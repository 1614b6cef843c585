import { blob, index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'

/**
 * Stored outcomes of requests sent with an `Idempotency-Key`, per tenant scope, for replay (or,
 * for answers carrying a secret, only the fact that the key was used). While its request runs, a
 * record is a `pending` claim: `owner` names it and `expires_at` is the claim's own short expiry,
 * renewed while the request runs; its outcome, written only by that owner, sets the record's TTL.
 */
export const idempotencyKeys = sqliteTable(
  'idempotency_keys',
  {
    scope: text('scope').notNull(),
    key: text('key').notNull(),
    requestHash: text('request_hash').notNull(),
    // `spent`: the first answer carried a secret, so only the use of the key is kept (no answer).
    state: text('state', { enum: ['pending', 'done', 'spent'] }).notNull(),
    status: integer('status'),
    headers: text('headers'),
    // bun:sqlite's statements read a blob as a Uint8Array (drizzle's as a Buffer, which is one).
    body: blob('body', { mode: 'buffer' }).$type<Uint8Array>(),
    // The pending claim's owner: this process's name and the claim's number in it (IdempotencyStore).
    owner: text('owner'),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.scope, t.key] }), index('idempotency_keys_expires_at').on(t.expiresAt)],
)
