import { and, asc, count, eq, gt, lte, sum } from 'drizzle-orm'
import { INDEX_CHANNEL, noticesOf } from '../../platform/db/notices'
import type { Store } from '../../platform/db/store'
import { engineIndexChanges, enginePublications } from './engine.publications.tables'

/** A base's published index as its row holds it. */
export type Publication = typeof enginePublications.$inferSelect
/** A generation published as a change on top of the one before. */
export type PublishedChange = typeof engineIndexChanges.$inferSelect

/** What a publication records besides its generation. */
export interface Published {
  baseId: string
  workspaceId: string
  objectKey: string
  bytes: number
  publishedAt: number
  owner: string
}

/**
 * Bases' published indexes, in the features' store every replica shares (engine.publications.tables.ts):
 * the head (the current generation and the last whole snapshot) and the changes since that snapshot.
 * Read through on every use, never kept: the generation a question reads is the one it answers from.
 * Every publication moves the head from the generation its writer started from, guarded by it, so of two
 * writers that started from one generation one publishes and the other writes nothing.
 */
export class PublicationsRepo {
  constructor(private readonly store: Store) {}

  /** The base's current publication, or null when it has none. */
  async current(baseId: string): Promise<Publication | null> {
    const t = this.store.table(enginePublications)
    const rows = await this.store.db.select().from(t).where(eq(t.baseId, baseId)).limit(1)
    const row = rows[0]
    return row ? numbers(row) : null
  }

  /** The changes published after generation `after`, oldest first. */
  async changesAfter(baseId: string, after: number): Promise<PublishedChange[]> {
    const t = this.store.table(engineIndexChanges)
    const rows = await this.store.db
      .select()
      .from(t)
      .where(and(eq(t.baseId, baseId), gt(t.generation, after)))
      .orderBy(asc(t.generation))
    return rows.map((r) => ({ ...r, generation: Number(r.generation), bytes: Number(r.bytes) }))
  }

  /** How many changes the base has since its last snapshot, and their files' bytes. */
  async changesSince(baseId: string): Promise<{ count: number; bytes: number }> {
    const c = this.store.table(engineIndexChanges)
    const rows = await this.store.db
      .select({ count: count(), bytes: sum(c.bytes) })
      .from(c)
      .where(eq(c.baseId, baseId))
    return { count: Number(rows[0]?.count ?? 0), bytes: Number(rows[0]?.bytes ?? 0) }
  }

  /**
   * Publishes generation `from.generation + 1` as a change (`next`'s file); false when another process
   * published first, and nothing written.
   */
  async publishChange(from: Publication, next: Published): Promise<boolean> {
    const t = this.store.table(enginePublications)
    const c = this.store.table(engineIndexChanges)
    const generation = from.generation + 1
    return this.store.unit(async () => {
      const moved = await this.store.db
        .update(t)
        .set({ generation, publishedAt: next.publishedAt, owner: next.owner })
        .where(and(eq(t.baseId, next.baseId), eq(t.generation, from.generation)))
        .returning({ baseId: t.baseId })
      if (moved.length !== 1) return false
      const { baseId, objectKey, bytes } = next
      await this.store.db.insert(c).values({ baseId, generation, objectKey, bytes })
      await this.told(baseId)
      return true
    })
  }

  /**
   * Publishes the next generation as a whole snapshot (`next`'s file): the first one when `from` is null.
   * Returns the keys of the files it supersedes (the snapshot before, the changes it covers), to delete;
   * null when another process published first, and nothing written.
   */
  async publishSnapshot(from: Publication | null, next: Published): Promise<string[] | null> {
    const t = this.store.table(enginePublications)
    const c = this.store.table(engineIndexChanges)
    const generation = (from?.generation ?? 0) + 1
    const row = { ...next, generation, snapshotGeneration: generation }
    return this.store.unit(async () => {
      const moved = from
        ? await this.store.db
            .update(t)
            .set(row)
            .where(and(eq(t.baseId, next.baseId), eq(t.generation, from.generation)))
            .returning({ baseId: t.baseId })
        : await this.store.db.insert(t).values(row).onConflictDoNothing().returning({ baseId: t.baseId })
      if (moved.length !== 1) return null
      await this.told(next.baseId)
      const covered = await this.store.db
        .delete(c)
        .where(and(eq(c.baseId, next.baseId), lte(c.generation, generation)))
        .returning({ objectKey: c.objectKey })
      return [...(from ? [from.objectKey] : []), ...covered.map((r) => r.objectKey)]
    })
  }

  /** The other processes told, once the unit commits, that the base's head moved (notices.ts; PostgreSQL). */
  private async told(baseId: string): Promise<void> {
    await noticesOf(this.store)?.tell(INDEX_CHANNEL, baseId)
  }

  /** Calls `fn` with the base of each head another process moves (PostgreSQL; never on SQLite). */
  heard(fn: (baseId: string) => void): void {
    noticesOf(this.store)?.hear(INDEX_CHANNEL, fn)
  }

  /** Forgets a deleted base's publication; returns the keys of its files. */
  async remove(baseId: string): Promise<string[]> {
    const t = this.store.table(enginePublications)
    const c = this.store.table(engineIndexChanges)
    return this.store.unit(async () => {
      const head = await this.store.db
        .delete(t)
        .where(eq(t.baseId, baseId))
        .returning({ objectKey: t.objectKey })
      const changes = await this.store.db
        .delete(c)
        .where(eq(c.baseId, baseId))
        .returning({ objectKey: c.objectKey })
      return [...head, ...changes].map((r) => r.objectKey)
    })
  }
}

/** A head row with its counters as numbers (PostgreSQL's bigint columns). */
function numbers(row: Publication): Publication {
  return {
    ...row,
    generation: Number(row.generation),
    bytes: Number(row.bytes),
    snapshotGeneration: Number(row.snapshotGeneration),
  }
}
