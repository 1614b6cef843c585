import { and, eq } from 'drizzle-orm'
import type { Store } from '../../platform/db/store'
import { enginePublications } from './engine.publications.tables'

/** A base's published index as its row holds it. */
export type Publication = typeof enginePublications.$inferSelect

/**
 * Bases' published indexes, in the features' store every replica shares (engine.publications.tables.ts).
 * Read through on every use, never kept: the generation a question reads is the one it answers from.
 */
export class PublicationsRepo {
  constructor(private readonly store: Store) {}

  /** The base's current publication, or null when it has none. */
  async current(baseId: string): Promise<Publication | null> {
    const t = this.store.table(enginePublications)
    const rows = await this.store.db.select().from(t).where(eq(t.baseId, baseId)).limit(1)
    const row = rows[0]
    return row ? { ...row, generation: Number(row.generation) } : null
  }

  /**
   * Moves the base's publication from generation `from` (0: none yet) to `from + 1` with `next`'s
   * object; false when another process published first (the generation moved), and nothing written.
   */
  async publish(from: number, next: Omit<Publication, 'generation'>): Promise<boolean> {
    const t = this.store.table(enginePublications)
    const row = { ...next, generation: from + 1 }
    const rows = await this.store.unit(() =>
      from === 0
        ? this.store.db.insert(t).values(row).onConflictDoNothing().returning({ baseId: t.baseId })
        : this.store.db
            .update(t)
            .set(row)
            .where(and(eq(t.baseId, next.baseId), eq(t.generation, from)))
            .returning({ baseId: t.baseId }),
    )
    return rows.length === 1
  }

  /** Forgets a deleted base's publication; returns its object's key, if it had one. */
  async remove(baseId: string): Promise<string | null> {
    const t = this.store.table(enginePublications)
    const rows = await this.store.unit(() =>
      this.store.db.delete(t).where(eq(t.baseId, baseId)).returning({ objectKey: t.objectKey }),
    )
    return rows[0]?.objectKey ?? null
  }
}
