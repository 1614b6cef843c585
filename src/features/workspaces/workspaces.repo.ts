import { asc, eq, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/db'
import { workspaces } from './workspaces.tables'

/** A workspace row as the rest of the code sees it (times in ms). */
export type WorkspaceRow = typeof workspaces.$inferSelect

/** Inserts a workspace. */
export function insertWorkspace(db: Db, row: typeof workspaces.$inferInsert): void {
  db.insert(workspaces).values(row).run()
}

/** The by-id read prepared once per database: every question reads its workspace's plan through it. */
const byId = new WeakMap<Db, ReturnType<typeof prepareById>>()
function prepareById(db: Db) {
  return db
    .select()
    .from(workspaces)
    .where(eq(workspaces.id, sql.placeholder('id')))
    .prepare()
}

/** One workspace by id, or undefined. */
export function findWorkspace(db: Db, id: string): WorkspaceRow | undefined {
  let read = byId.get(db)
  if (!read) {
    read = prepareById(db)
    byId.set(db, read)
  }
  return read.get({ id })
}

/** Renames a workspace. */
export function renameWorkspace(db: Db, id: string, name: string, at: number): void {
  db.update(workspaces).set({ name, updatedAt: at }).where(eq(workspaces.id, id)).run()
}

/** Moves a workspace to another plan. */
export function setWorkspacePlan(db: Db, id: string, plan: string, at: number): void {
  db.update(workspaces).set({ plan, updatedAt: at }).where(eq(workspaces.id, id)).run()
}

/** Whether any workspace exists. */
export function anyWorkspace(db: Db): boolean {
  return db.select({ id: workspaces.id }).from(workspaces).limit(1).get() !== undefined
}

/** Every workspace, oldest first (the CLI picks one to serve). */
export function listWorkspaces(db: Db): Pick<WorkspaceRow, 'id' | 'name'>[] {
  return db
    .select({ id: workspaces.id, name: workspaces.name })
    .from(workspaces)
    .orderBy(asc(workspaces.createdAt), asc(workspaces.id))
    .all()
}

/**
 * The status read of every authenticated request (a key's or a session's workspace), prepared once:
 * a keyed point read of one column, kept by the service until the next commit.
 */
export function workspaceStatusLookup(db: Db): (id: string) => WorkspaceRow['status'] | undefined {
  const read = db
    .select({ status: workspaces.status })
    .from(workspaces)
    .where(eq(workspaces.id, sql.placeholder('id')))
    .prepare()
  return (id) => read.get({ id })?.status
}
