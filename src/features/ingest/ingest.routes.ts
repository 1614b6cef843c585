import { Type } from '@sinclair/typebox'
import { actorOf } from '../../platform/auth/principal'
import { defineRoute, type RouteDef, reply } from '../../platform/http/route'
import { DocumentResp, documentResp } from '../corpora/corpora.schemas'
import { readingRoutes } from './ingest.reading.routes'
import {
  CommitReq,
  DiffReq,
  DiffResp,
  RawQuery,
  RawResp,
  SyncRunParams,
  SyncRunResp,
  UploadForm,
  UploadUrlsReq,
  UploadUrlsResp,
  UpsertReq,
  UpsertResp,
} from './ingest.schemas'
import { type IngestService, syncRunResp } from './ingest.service'

/** Header naming the sync run an upload was counted in. */
export const SYNC_RUN_HEADER = 'x-sync-run-id'

const CorpusParams = Type.Object({ corpus_id: Type.String({ maxLength: 64 }) })

/** What every manifest route says of its limits (the numbers are the server's settings). */
const MANIFEST_LIMITS =
  'A manifest lists at most `ingest.max_manifest_files` files (50,000 by default; more is a 422 `too_many_files` with `details: {limit, files}`) in a body of at most `ingest.max_json_bytes` (16 MiB by default; more is a 413 `payload_too_large` with `details.limit`, refused before the body is read whole); nothing is written then. `GET /v1/platform/info` gives both.'

/** Upload, the `/v1` push protocol and sync runs (spec: "Document bases" upload and "Ingest"). */
export function ingestRoutes(
  ingest: IngestService,
  limits: { maxRequestBytes: number; maxJsonBytes: number },
) {
  const json = limits.maxJsonBytes
  const routes: RouteDef[] = [
    defineRoute({
      method: 'POST',
      path: '/corpora/:corpus_id/documents',
      auth: 'bearer',
      scope: 'ingest',
      summary: 'Upload files (multipart `files`, several per request)',
      description:
        'Each file streams to storage. A path already in the base is replaced in place (same id, new content); the same content again is left unchanged. A refused file (too large: 413; unsupported type: 415; unsafe path: 422) refuses the whole request and nothing is kept. Text extraction runs in the background; the documents stay `pending` until onboarding. The response header `x-sync-run-id` names the sync run. 403 `plan_limit_reached` (nothing kept) when the request would take the workspace past the documents or storage cap of its plan; replacing a file with content no larger never does.',
      tags: ['documents'],
      errors: ['plan_limit_reached'],
      params: CorpusParams,
      body: UploadForm,
      bodyKind: 'stream',
      maxBodyBytes: limits.maxRequestBytes,
      response: Type.Array(DocumentResp),
      handler: async ({ principal, params, request }) => {
        const out = await ingest.upload(principal.workspaceId, params.corpus_id, request)
        return reply(200, out.docs.map(documentResp), { [SYNC_RUN_HEADER]: out.run.id })
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/corpora/:corpus_id/documents/diff',
      mount: 'v1',
      auth: 'bearer',
      scope: 'ingest',
      summary: 'Compare a manifest (path, SHA-256, size) with the base',
      description: MANIFEST_LIMITS,
      tags: ['ingest'],
      params: CorpusParams,
      body: DiffReq,
      maxBodyBytes: json,
      response: DiffResp,
      handler: ({ principal, params, body }) =>
        ingest.push.diff(principal.workspaceId, params.corpus_id, body),
    }),
    defineRoute({
      method: 'POST',
      path: '/corpora/:corpus_id/documents/upload-urls',
      mount: 'v1',
      auth: 'bearer',
      scope: 'ingest',
      summary: 'Where to PUT the content of new and changed files',
      description: `Presigned PUT URLs when the object store is S3 (\`mode: presigned\`); otherwise \`mode: raw\` and each URL is \`PUT /v1/corpora/{id}/documents/raw\`. Content the base already holds has \`upload: false\`. ${MANIFEST_LIMITS}`,
      tags: ['ingest'],
      params: CorpusParams,
      body: UploadUrlsReq,
      maxBodyBytes: json,
      response: UploadUrlsResp,
      handler: ({ principal, params, body }) =>
        ingest.push.uploadUrls(principal.workspaceId, params.corpus_id, body.files),
    }),
    defineRoute({
      method: 'PUT',
      path: '/corpora/:corpus_id/documents/raw',
      mount: 'v1',
      auth: 'bearer',
      scope: 'ingest',
      summary: 'Upload one file body (where presigning is unavailable)',
      description:
        "The body is the file's bytes (any content type). The server checks them against `sha256` (422 `checksum_mismatch`, nothing kept) and holds them for a commit.",
      tags: ['ingest'],
      params: CorpusParams,
      query: RawQuery,
      bodyKind: 'stream',
      maxBodyBytes: limits.maxRequestBytes,
      response: RawResp,
      handler: ({ principal, params, query, request }) =>
        ingest.push.putRaw(principal.workspaceId, params.corpus_id, query, request),
    }),
    defineRoute({
      method: 'POST',
      path: '/corpora/:corpus_id/documents/commit',
      mount: 'v1',
      auth: 'bearer',
      scope: 'ingest',
      summary: 'Register a manifest and start the work; returns the sync run',
      description: `Every new or changed file must have its content uploaded (or already in the base), else 422 \`content_missing\` and nothing changes. The files a commit creates or changes become managed by push. With \`delete_missing\`, push-managed documents under the prefix that the manifest does not list are deleted, each with a receipt in the audit log; documents uploaded by hand or upserted are never deleted by a push. A large manifest is registered in batches into its run, which stays \`running\` until the last. 403 \`plan_limit_reached\` (nothing committed; the uploaded content stays until it expires) when the commit would take the workspace past its plan's documents or storage cap. ${MANIFEST_LIMITS}`,
      tags: ['ingest'],
      errors: ['plan_limit_reached'],
      params: CorpusParams,
      body: CommitReq,
      maxBodyBytes: json,
      status: 202,
      response: SyncRunResp,
      handler: async ({ principal, params, body, ip, requestId }) => {
        const actor = actorOf(principal, ip, requestId)
        return reply(
          202,
          syncRunResp(await ingest.push.commit(principal.workspaceId, params.corpus_id, body, actor)),
        )
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/corpora/:corpus_id/documents/upsert',
      mount: 'v1',
      auth: 'bearer',
      scope: 'ingest',
      summary: 'Write one document by path with its content in the body',
      description:
        "403 `plan_limit_reached` (nothing written) when a new path or larger content would take the workspace past its plan's documents or storage cap.",
      tags: ['ingest'],
      errors: ['plan_limit_reached'],
      params: CorpusParams,
      body: UpsertReq,
      maxBodyBytes: json,
      response: UpsertResp,
      handler: async ({ principal, params, body }) => {
        const out = await ingest.upsert(principal.workspaceId, params.corpus_id, body)
        return {
          result: out.results[0],
          document: documentResp(out.docs[0]!),
          sync_run: syncRunResp(out.run),
        }
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/corpora/:corpus_id/sync-runs',
      mount: 'v1',
      auth: 'bearer',
      summary: 'Ingestion history of a base, newest first',
      tags: ['ingest'],
      params: CorpusParams,
      list: true,
      response: SyncRunResp,
      handler: ({ principal, params, page }) => ingest.runs(principal.workspaceId, params.corpus_id, page),
    }),
    defineRoute({
      method: 'GET',
      path: '/corpora/:corpus_id/sync-runs/:run_id',
      mount: 'v1',
      auth: 'bearer',
      summary: 'One sync run and its counters',
      tags: ['ingest'],
      params: SyncRunParams,
      response: SyncRunResp,
      handler: async ({ principal, params }) =>
        syncRunResp(await ingest.run(principal.workspaceId, params.corpus_id, params.run_id)),
    }),
    // Documents read back: their text and their files (ingest keeps both in the object store).
    ...readingRoutes(ingest),
  ]
  return routes
}
