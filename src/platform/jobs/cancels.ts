// Stopping jobs on the synchronous SQLite connection (code not yet on the store): cancel flags,
// pending jobs ended or moved. JobQueue's methods of the same names call these.
import type { Database } from 'bun:sqlite'

/**
 * Sets the cooperative cancel flag on a job and its children; pending children end `canceled`
 * at once, running ones stop when their worker next reads the flag.
 */
export function requestCancel(c: Database, now: number, id: string): void {
  c.transaction(() => {
    c.query(
      "UPDATE jobs SET cancel_requested = 1, updated_at = ? WHERE (id = ? OR parent_id = ?) AND status IN ('pending','running')",
    ).run(now, id, id)
    c.query(
      `UPDATE jobs SET status = 'canceled', finished_at = ?, updated_at = ?
         WHERE parent_id = ? AND status = 'pending'`,
    ).run(now, now, id)
  })()
}

/**
 * Asks every job of a subject that has not ended to stop (the subject is going away): pending ones
 * end `canceled` at once, running ones at their next checkpoint. Returns how many were asked.
 */
export function cancelSubject(c: Database, now: number, workspaceId: string, subjectId: string): number {
  return c.transaction(() => {
    const asked = c
      .query(
        `UPDATE jobs SET cancel_requested = 1, updated_at = ?
         WHERE workspace_id = ? AND subject_id = ? AND status IN ('pending','running')`,
      )
      .run(now, workspaceId, subjectId).changes
    c.query(
      `UPDATE jobs SET status = 'canceled', finished_at = ?, updated_at = ?
         WHERE workspace_id = ? AND subject_id = ? AND status = 'pending'`,
    ).run(now, now, workspaceId, subjectId)
    return asked
  })()
}

/**
 * Moves a job that has not started to another due time (a debounced job waiting for more work
 * to arrive); false when it is no longer pending.
 */
export function postpone(c: Database, now: number, id: string, runAt: number): boolean {
  return (
    c
      .query("UPDATE jobs SET run_at = ?, updated_at = ? WHERE id = ? AND status = 'pending'")
      .run(runAt, now, id).changes > 0
  )
}

/** Ends a job that has not started `canceled`; false when it is no longer pending. */
export function cancelPending(c: Database, now: number, id: string): boolean {
  return (
    c
      .query(
        `UPDATE jobs SET status = 'canceled', cancel_requested = 1, finished_at = ?, updated_at = ?
         WHERE id = ? AND status = 'pending'`,
      )
      .run(now, now, id).changes > 0
  )
}

/** Whether a job or its parent has been asked to stop. */
export function cancelRequested(c: Database, id: string): boolean {
  const r = c
    .query<{ c: number }, [string]>(
      `SELECT max(j.cancel_requested, coalesce(p.cancel_requested, 0)) AS c
       FROM jobs j LEFT JOIN jobs p ON p.id = j.parent_id WHERE j.id = ?`,
    )
    .get(id)
  return r?.c === 1
}
