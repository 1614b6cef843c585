import type { Database, Statement } from 'bun:sqlite'

/** What citations read of the index: where each passage starts in its section's text. */
export class CitationsRepo {
  private readonly start: Statement

  constructor(client: Database) {
    this.start = client.prepare('SELECT start FROM engine_passages WHERE section_id = ? AND ordinal = ?')
  }

  /**
   * Where a passage starts in its section's text, or null: no such passage, or one indexed before
   * starts were kept (migration 0019; onboarding the section again records it).
   */
  passageStart(sectionId: string, ordinal: number): number | null {
    const row = this.start.get(sectionId, ordinal) as { start: number | null } | null
    return row?.start ?? null
  }
}
