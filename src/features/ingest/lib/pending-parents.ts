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
  ) {}

  /** Before a file of the batch is looked up by path: one seen already in the batch is inserted first. */
  async before(path: string): Promise<void> {
    if (this.paths.has(path)) await this.flush()
    this.paths.add(path)
  }

  /** The raw key of identical content new in this batch, to share as content already stored is. */
  rawKeyOf(sha256: string): string | undefined {
    return this.shas.get(sha256)
  }

  async add(row: NewParent): Promise<void> {
    this.parents.push(row)
    this.shas.set(row.sha256, row.rawKey)
    if (this.eager) await this.flush()
  }

  async flush(): Promise<void> {
    const rows = this.parents.splice(0)
    if (rows.length > 0) await this.corpora.insertParents(rows)
  }
}
