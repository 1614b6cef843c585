import type { CorporaService, NewParent } from '../../corpora/corpora.service'

/**
 * The new documents of a registration waiting for their insert: several a statement, before
 * anything reads them back (in a transaction, a statement firing the counters trigger writes a
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
  before(path: string): void {
    if (this.paths.has(path)) this.flush()
    this.paths.add(path)
  }

  /** The raw key of identical content new in this batch, to share as content already stored is. */
  rawKeyOf(sha256: string): string | undefined {
    return this.shas.get(sha256)
  }

  add(row: NewParent): void {
    this.parents.push(row)
    this.shas.set(row.sha256, row.rawKey)
    if (this.eager) this.flush()
  }

  flush(): void {
    this.corpora.insertParents(this.parents.splice(0))
  }
}
