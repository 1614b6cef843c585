import type { CorporaService, NewParent } from '../../corpora/corpora.service'

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
    private readonly corpora: Pick<CorporaService, 'insertParents'>,
    private readonly eager: boolean,
    /** The raw key of each content of the batch the base held before it (read once, in the unit). */
    private readonly held: ReadonlyMap<string, string> = new Map(),
  ) {}

  /** Before a file of the batch is looked up by path: one seen already in the batch is inserted first. */
  async before(path: string): Promise<void> {
    if (this.paths.has(path)) await this.flush()
    this.paths.add(path)
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
