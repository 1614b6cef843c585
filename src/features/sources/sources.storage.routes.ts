import { iso } from '../../platform/clock/clock'
import { notFound } from '../../platform/errors/errors'
import { defineRoute, type RouteDef } from '../../platform/http/route'
import { CorpusParams } from '../corpora/corpora.schemas'
import type { S3Setup } from './s3-setup'
import { S3SetupResp, UploadCredentialsResp } from './sources.storage.schemas'
import type { UploadCredentialsService } from './upload-credentials'

/** What the storage routes need: the credentials issuer, the setup guide and a tenancy check. */
export interface StorageRouteDeps {
  uploadCredentials: Pick<UploadCredentialsService, 'issue'>
  setup: () => S3Setup
  /** Whether the workspace has this base; another workspace's base is answered as missing. */
  corporaExists: (workspaceId: string, corpusId: string) => Promise<boolean>
}

/** `POST /v1/corpora/{id}/upload-credentials` and `GET /v1/sources/s3/setup` (spec, Sources). */
export function storageRoutes(deps: StorageRouteDeps): RouteDef[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/corpora/:corpus_id/upload-credentials',
      mount: 'v1',
      auth: 'bearer',
      scope: 'ingest',
      summary: "An hour of bucket credentials that may write only under the base's upload prefix",
      tags: ['sources'],
      params: CorpusParams,
      response: UploadCredentialsResp,
      errors: ['not_found', 'upload_credentials_unavailable', 'service_unavailable'],
      // The answer carries a secret: an Idempotency-Key replay would mean storing it in the clear,
      // so a key runs the request once and a reuse is refused (409 `idempotency_key_reused`).
      idempotent: 'once',
      handler: async ({ principal, params }) => {
        if (!(await deps.corporaExists(principal.workspaceId, params.corpus_id)))
          throw notFound('Document base')
        const c = await deps.uploadCredentials.issue(principal.workspaceId, params.corpus_id)
        return {
          access_key_id: c.accessKeyId,
          secret_access_key: c.secretAccessKey,
          session_token: c.sessionToken,
          expires_at: iso(c.expiresAt),
          endpoint: c.endpoint,
          bucket: c.bucket,
          region: c.region,
          prefix: c.prefix,
          allowed_actions: c.allowedActions,
        }
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/sources/s3/setup',
      mount: 'v1',
      // Source administration (spec, Authentication 4): a key needs `admin`, a session an admin's.
      auth: 'admin',
      scope: 'admin',
      summary:
        'What bucket policy, user and role to create for S3 storage, upload credentials and bucket sources',
      tags: ['sources'],
      response: S3SetupResp,
      handler: () => deps.setup(),
    }),
  ]
}
