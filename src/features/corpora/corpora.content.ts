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

  /**
   * Adds parent documents with fresh content, several a statement: `uploaded` (waiting for their
   * extraction), or `extracted` when their text was read as they were uploaded.
   */
  insertParents(rows: NewParent[]): Promise<void> {
    return this.d.store.unit(() => this.repo.insertParents(rows))
  }

  /**
   * Gives a parent document new content in place (same id; any live state → `uploaded`, or `extracted`
   * with its text read as it was uploaded): its sections and derived state go.
   */
  async replaceContent(documentId: string, r: NewContent): Promise<void> {
    await this.d.store.unit(() => this.repo.replaceContent(documentId, r))
  }

  /**
   * Records a finished extraction of a parent document (→ `extracted`): its text sidecar, sizes and
   * sections, if the document still has the raw object the extraction read (`parent.raw_key`; the
   * update is conditional on it). False when nothing was written because the document was deleted
   * or given other content meanwhile (its newer content has its own extraction). A move the
   * lifecycle refuses, as the row was read or as it is when written, is a 409.
   */
  async setExtracted(parent: DocumentRow, x: Extraction): Promise<boolean> {
    assertMove(stateOf({ status: parent.status, textKey: parent.text_key }), 'extracted', parent.id)
    const done = await this.d.store.unit(() => this.repo.setExtracted(parent, x))
    if (done === 'refused') throw fail('conflict', `Document ${parent.id} cannot go to extracted now.`)
    return done === 'done'
  }

  /**
   * Marks a document `failed` with the reason the user will see, and tells it (`document.failed`) in
   * the unit, if it still has the raw object `rawKey` whose reading failed and may fail. False when
   * nothing changed (deleted, given other content, or in no state that may fail meanwhile).
   */
  async markFailed(
    documentId: string,
    rawKey: string,
    error: string,
    now: number,
    contentType?: string,
  ): Promise<boolean> {
    return await this.d.store.unit(async () => {
      const at = await this.repo.setFailed(documentId, rawKey, error, now, contentType)
      if (!at) return false
      const payload = { corpusId: at.corpusId, documentId, error }
      await this.d.events.publish({ type: 'document.failed', workspaceId: at.workspaceId, payload })
      return true
    })
  }
}
