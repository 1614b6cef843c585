import { sql } from 'drizzle-orm'
import { rawRows } from '../db/raw'
import type { Store } from '../db/store'

// A workspace's events are delivered in `seq` order, and on PostgreSQL a unit that took a lower
// `seq` can commit after one that took a higher (a sequence value is taken at insert). So a
// workspace's head is delivered only while no unit that may still commit one of its events is
// open: each publishing unit holds the workspace's key shared until it ends, and the dispatcher
// claims a head only with the key held alone (docs/events.md, "Order"). Shared holders never wait
// for each other, so publishing units of one workspace run at once as before and cannot deadlock
// on it; the dispatcher only tries (it never waits), so it cannot either. SQLite has one writer: a
// unit's events are committed before the next unit takes a `seq`, and both functions do nothing.

/** The advisory lock key of a workspace's events (the same text hashed in SQL as in a parameter). */
const PREFIX = 'outbox:'

/**
 * Marks the calling unit as one that may commit events of `workspaceId` until it ends; taken
 * before its event takes a `seq`. On PostgreSQL a shared transaction-scoped advisory lock.
 */
export async function holdPublishing(store: Store, workspaceId: string): Promise<void> {
  if (store.dialect !== 'postgres') return
  await rawRows(store, sql`SELECT pg_advisory_xact_lock_shared(hashtextextended(${PREFIX + workspaceId}, 0))`)
}

/**
 * Of these workspaces, those with no publishing unit open, each then held alone by the calling
 * unit until it ends, so none opens meanwhile: their events committed so far are all the events
 * that will take a `seq` below the next one. Never waits. On SQLite, all of them.
 */
export async function quietWorkspaces(store: Store, workspaceIds: string[]): Promise<Set<string>> {
  if (store.dialect !== 'postgres' || workspaceIds.length === 0) return new Set(workspaceIds)
  const ids = sql.join(
    workspaceIds.map((id) => sql`(${id})`),
    sql`, `,
  )
  const rows = await rawRows(
    store,
    sql`SELECT w.id FROM (VALUES ${ids}) AS w(id)
        WHERE pg_try_advisory_xact_lock(hashtextextended(${PREFIX}::text || w.id, 0))`,
  )
  return new Set(rows.map((r) => String(r.id)))
}
