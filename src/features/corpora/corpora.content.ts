import type { Store } from '../../platform/db/store'
import { fail } from '../../platform/errors/errors'
import type { Outbox } from '../../platform/events/outbox'
import { DocumentContentRepo, type Extraction, type NewContent, type NewParent } from './corpora.content.repo'
import { assertMove, stateOf } from './corpora.lifecycle'
import type { DocumentRow } from './corpora.rows'

/**
 * The content writes ingestion makes through CorporaService (registering new or replaced files,
 * recording extractions and failures), each a unit (a savepoint of the caller's unit, when it runs
 * in one) and each a move of the lifecycle (corpora.lifecycle.ts).
 */
export class DocumentContent {
  readonly repo: DocumentContentRepo

  constructor(private readonly d: { store: Store; events: Outbox }) {
    this.repo = new DocumentContentRepo(d.store)
  }

  /** Adds parent documents with fresh content (`uploaded`: waiting for their extraction), several a statement. */
  insertParents(rows: NewParent[]): Promise<void> {
    return this.d.store.unit(() => this.repo.insertParents(rows))
  }

  /** Gives a parent document new content in place (same id; any live state → `uploaded`): its sections and derived state go. */
  async replaceContent(documentId: string, r: NewContent): Promise<void> {
    await this.d.store.unit(() => this.repo.replaceContent(documentId, r))
  }

  /**
   * Records a finished extraction of a parent document (→ `extracted`): its text sidecar, sizes and
   * sections. A move the lifecycle refuses, as the row was read or as it is when written (the
   * update's `WHERE` holds the states that may move), is a 409; a document deleted meanwhile
   * writes nothing.
   */
  async setExtracted(parent: DocumentRow, x: Extraction): Promise<void> {
    assertMove(stateOf({ status: parent.status, textKey: parent.text_key }), 'extracted', parent.id)
    const done = await this.d.store.unit(() => this.repo.setExtracted(parent, x))
    if (done === 'refused') throw fail('conflict', `Document ${parent.id} cannot go to extracted now.`)
  }

  /** Marks a document `failed` with the reason the user will see, and tells it (`document.failed`) in the unit. */
  async markFailed(documentId: string, error: string, now: number, contentType?: string): Promise<void> {
    await this.d.store.unit(async () => {
      const at = await this.repo.setFailed(documentId, error, now, contentType)
      if (!at) return
      const payload = { corpusId: at.corpusId, documentId, error }
      await this.d.events.publish({ type: 'document.failed', workspaceId: at.workspaceId, payload })
    })
  }
}
