import type { Subscriber } from '../../platform/events/dispatcher'
import type { EnvelopeStore } from '../../platform/storage/envelope-store'
import type { CorporaService } from '../corpora/corpora.service'
import type { KmsKeyring } from './kms.keyring'

/**
 * Seals the original file of each new or changed document of a workspace with an enabled key, if it
 * reached the store plain: only files put straight into the bucket (presigned URLs, upload
 * credentials) do, since every write through Engram is sealed as it is stored. One look at the
 * object's first bytes otherwise.
 */
export function sealUploadsSubscriber(d: {
  keyring: KmsKeyring
  envelope: EnvelopeStore
  corpora: Pick<CorporaService, 'document'>
}): Subscriber<'document.created' | 'document.updated'> {
  return {
    name: 'kms.seal_uploads',
    types: ['document.created', 'document.updated'],
    // A workspace without an enabled key (most of them): its uploads' events are written delivered.
    takes: async (e) => (await d.keyring.row(e.workspaceId))?.enabled === true,
    async handle(e) {
      if (!(await d.keyring.row(e.workspaceId))?.enabled) return
      const doc = await d.corpora.document(e.payload.corpusId, e.payload.documentId)
      if (doc?.raw_key) await d.envelope.sealInPlace(doc.raw_key)
    },
  }
}
