import type { CorporaService, DocumentRow, NewParent } from '../../corpora/corpora.service'

/**
 * The new documents of a registration waiting for their insert: several a statement, before
 * anything reads them back (in a unit, a statement firing the counters trigger writes a
 * statement journal, once a statement rather than once a row). `eager` inserts each at once (a
 * source's sync that takes what fits registers each file in a savepoint of its own).
 */
export class PendingParents {
  private readonly parents: NewParent[] = []
  private readonly shas = new Map<string, string>()
  private readonly paths = new Set<string>()

  constructor(
    private readonly corpora: Pick<CorporaService, 'insertParents' | 'documentByPath'>,
    private readonly eager: boolean,
    /** The raw key of each content of the batch the base held before it (read once, in the unit). */
    private readonly held: ReadonlyMap<string, string> = new Map(),
    /** The rows at the batch's paths before it (read at once, in the unit, not a statement a file). */
    private readonly atPaths: ReadonlyMap<string, DocumentRow> = new Map(),
  ) {}

  /**
   * The row at a file's path as the file is registered: as read before the batch, or, for a path the
   * batch named already, read again once the file before is inserted.
   */
  async existingAt(corpusId: string, path: string): Promise<DocumentRow | null> {
    if (!this.paths.has(path)) {
      this.paths.add(path)
      return this.atPaths.get(path) ?? null
    }
    await this.flush()
    return this.corpora.documentByPath(corpusId, path)
  }

  /**
   * The raw key of identical content the base holds (before the batch, or given by it to a document
   * it added or replaced), to share rather than store twice; undefined when none does.
   */
  rawKeyOf(sha256: string): string | undefined {
    return this.held.get(sha256) ?? this.shas.get(sha256)
  }

  /** Notes that a document of the batch now holds `rawKey` for its content (a replacement). */
  holds(sha256: string, rawKey: string): void {
    if (!this.shas.has(sha256)) this.shas.set(sha256, rawKey)
  }

  async add(row: NewParent): Promise<void> {
    this.parents.push(row)
    this.holds(row.sha256, row.rawKey)
    if (this.eager) await this.flush()
  }

  async flush(): Promise<void> {
    const rows = this.parents.splice(0)
    if (rows.length > 0) await this.corpora.insertParents(rows)
  }
}
