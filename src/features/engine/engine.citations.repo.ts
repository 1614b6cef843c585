import type { Database, Statement } from 'bun:sqlite'
import { type CommitWatch, commitWatch } from '../../platform/db/commit-watch'
import type { BaseRow } from './engine.rows'
import type { enginePassages } from './engine.tables'

/** Passage starts kept across bases at most (each about a hundred bytes with its key: 1.6 MB). */
const MAX_KEPT = 16_384

/**
 * What citations read of the index: where each passage starts in its section's text. A start is
 * fixed while its base's index is: every change to it bumps the base's generation (in any process),
 * so the starts read are kept per base for the generation they were read at. A start is the last
 * column of a passage's row, after its text and words, so reading it reads the whole row. The
 * generation itself is read again only after a commit to the database (commit-watch.ts).
 */
export class CitationsRepo {
  private readonly start: Statement
  private readonly generation: Statement
  /** Per base: the generation its starts were read at (checked at commit-watch version `seen`), and the starts by `sectionId:ordinal`. */
  private readonly kept = new Map<
    string,
    { generation: number; seen: number; starts: Map<string, number | null> }
  >()
  private count = 0
  private readonly commits: CommitWatch

  constructor(client: Database) {
    this.commits = commitWatch(client)
    this.start = client.prepare('SELECT start FROM engine_passages WHERE section_id = ? AND ordinal = ?')
    this.generation = client.prepare('SELECT generation FROM engine_bases WHERE base_id = ?')
  }

  /** Starts kept now, across bases. */
  get size(): number {
    return this.count
  }

  /**
   * The passage starts of a base as of now (`passageStart` of each, kept for its generation):
   * read again after any change to its index.
   */
  startsOf(baseId: string): (sectionId: string, ordinal: number) => number | null {
    // Taken before the read: a commit racing it moves the version, and the next question reads again.
    const seen = this.commits.version()
    let kept = this.kept.get(baseId)
    if (kept?.seen !== seen) {
      const row = this.generation.get(baseId) as Pick<BaseRow, 'generation'> | null
      if (!row) {
        if (kept) this.drop(baseId)
        return (sectionId, ordinal) => this.passageStart(sectionId, ordinal)
      }
      if (kept && kept.generation !== row.generation) {
        this.drop(baseId)
        kept = undefined
      }
      if (kept) kept.seen = seen
      else {
        kept = { generation: row.generation, seen, starts: new Map<string, number | null>() }
        this.kept.set(baseId, kept)
      }
    }
    const base = kept
    return (sectionId, ordinal) => {
      const key = `${sectionId}:${ordinal}`
      const known = base.starts.get(key)
      if (known !== undefined) return known
      const start = this.passageStart(sectionId, ordinal)
      if (this.count >= MAX_KEPT) this.clear()
      // Kept only while the base is (a clear above or another base's may have dropped it).
      if (this.kept.get(baseId) === base) {
        base.starts.set(key, start)
        this.count++
      }
      return start
    }
  }

  /**
   * Where a passage starts in its section's text, or null: no such passage, or one indexed before
   * starts were kept (migration 0019; onboarding the section again records it).
   */
  passageStart(sectionId: string, ordinal: number): number | null {
    const row = this.start.get(sectionId, ordinal) as Pick<typeof enginePassages.$inferSelect, 'start'> | null
    return row?.start ?? null
  }

  private drop(baseId: string): void {
    const kept = this.kept.get(baseId)
    if (!kept) return
    this.count -= kept.starts.size
    this.kept.delete(baseId)
  }

  private clear(): void {
    this.kept.clear()
    this.count = 0
  }
}
