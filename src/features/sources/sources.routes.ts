import { Type } from '@sinclair/typebox'
import { actorOf } from '../../platform/auth/principal'
import { iso } from '../../platform/clock/clock'
import { defineRoute, type RouteDef, reply } from '../../platform/http/route'
import { SyncRunResp } from '../ingest/ingest.schemas'
import { syncRunResp } from '../ingest/ingest.service'
import {
  DeleteSourceQuery,
  SourceDeleteResp,
  SourceParams,
  SourceReq,
  SourceResp,
  SourceUpdateReq,
  sourceResp,
  ValidateResp,
} from './sources.schemas'
import type { SourcesService } from './sources.service'

const CorpusParams = Type.Object({ corpus_id: Type.String({ maxLength: 64 }) })
const SOURCE_ERRORS = ['invalid_folder', 'folder_root_not_allowed', 'egress_denied'] as const

/** The spec's "Sources" group: a base's sources, their validation, syncs and cancel. */
export function sourcesRoutes(sources: SourcesService, clock: { now(): Date }): RouteDef[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/corpora/:corpus_id/sources',
      mount: 'v1',
      auth: 'bearer',
      scope: 'ingest',
      summary: 'Keep the base in step with a folder through a connection',
      description:
        'The folder is checked for its kind (a folder outside the allowed roots, a `..` or symlink escape, a metadata address: 422 with its code); nothing is written on a refusal. With `interval_minutes`, syncs run on that schedule; `POST .../sync` runs one now.',
      tags: ['sources'],
      params: CorpusParams,
      body: SourceReq,
      status: 201,
      response: SourceResp,
      errors: [...SOURCE_ERRORS],
      handler: async ({ principal, params, body, ip, requestId }) => {
        const actor = actorOf(principal, ip, requestId)
        return reply(
          201,
          sourceResp(await sources.create(principal.workspaceId, params.corpus_id, body, actor)),
        )
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/corpora/:corpus_id/sources',
      mount: 'v1',
      auth: 'bearer',
      summary: "A base's sources with their current and last runs",
      tags: ['sources'],
      params: CorpusParams,
      list: true,
      response: SourceResp,
      handler: async ({ principal, params }) => {
        const items = (await sources.list(principal.workspaceId, params.corpus_id)).map(sourceResp)
        return { items, total: items.length, nextCursor: null }
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/corpora/:corpus_id/sources/:source_id',
      mount: 'v1',
      auth: 'bearer',
      summary: 'One source',
      tags: ['sources'],
      params: SourceParams,
      response: SourceResp,
      handler: async ({ principal, params }) =>
        sourceResp(await sources.get(principal.workspaceId, params.corpus_id, params.source_id)),
    }),
    defineRoute({
      method: 'PUT',
      path: '/corpora/:corpus_id/sources/:source_id',
      mount: 'v1',
      auth: 'bearer',
      scope: 'ingest',
      summary: 'Change a source: its folder, connection, name, where files land, or schedule',
      description: 'A new folder or connection makes the next sync list everything again.',
      tags: ['sources'],
      params: SourceParams,
      body: SourceUpdateReq,
      response: SourceResp,
      errors: [...SOURCE_ERRORS],
      handler: async ({ principal, params, body, ip, requestId }) => {
        const { workspaceId } = principal
        const actor = actorOf(principal, ip, requestId)
        return sourceResp(await sources.update(workspaceId, params.corpus_id, params.source_id, body, actor))
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/corpora/:corpus_id/sources/:source_id',
      mount: 'v1',
      auth: 'bearer',
      scope: 'ingest',
      summary: 'Delete a source; its documents stay unless `delete_documents=true`',
      tags: ['sources'],
      params: SourceParams,
      query: DeleteSourceQuery,
      response: SourceDeleteResp,
      handler: async ({ principal, params, query, ip, requestId }) =>
        await sources.delete(principal.workspaceId, params.corpus_id, params.source_id, {
          deleteDocuments: query.delete_documents ?? false,
          actor: actorOf(principal, ip, requestId),
        }),
    }),
    defineRoute({
      method: 'POST',
      path: '/corpora/:corpus_id/sources/:source_id/validate',
      mount: 'v1',
      auth: 'bearer',
      scope: 'ingest',
      summary: 'Check that the connection reaches the folder with the permission a sync needs',
      description:
        'Answers 200 when a sync could run; otherwise the error says exactly what is wrong: `source_unreachable`, `source_credentials_rejected`, `source_permission_denied`, `source_folder_not_found`, `folder_root_not_allowed`, `egress_denied`, `source_rate_limited` (with Retry-After).',
      tags: ['sources'],
      params: SourceParams,
      response: ValidateResp,
      errors: [
        'source_unreachable',
        'source_credentials_rejected',
        'source_permission_denied',
        'source_folder_not_found',
        'source_rate_limited',
        'source_failed',
        ...SOURCE_ERRORS,
      ],
      handler: async ({ principal, params }) => {
        const out = await sources.validate(principal.workspaceId, params.corpus_id, params.source_id)
        return { ok: true as const, ...out, checked_at: iso(clock.now()) }
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/corpora/:corpus_id/sources/:source_id/sync',
      mount: 'v1',
      auth: 'bearer',
      scope: 'ingest',
      summary: 'Sync now; returns the run to watch (GET /v1/corpora/{id}/sync-runs/{run_id})',
      description:
        'New and changed files are fetched, files gone at the source are deleted from the base everywhere (with receipts). The run counts created, updated, unchanged, deleted and failed files; its `job_id` gives progress and an estimate. 409 `sync_in_progress` while a sync of the source lists it.',
      tags: ['sources'],
      params: SourceParams,
      status: 202,
      response: SyncRunResp,
      errors: ['sync_in_progress'],
      idempotent: true,
      handler: async ({ principal, params }) =>
        reply(
          202,
          syncRunResp(await sources.sync(principal.workspaceId, params.corpus_id, params.source_id)),
        ),
    }),
    defineRoute({
      method: 'POST',
      path: '/corpora/:corpus_id/sources/:source_id/cancel',
      mount: 'v1',
      auth: 'bearer',
      scope: 'ingest',
      summary: 'Stop the sync listing this source; its run ends `canceled`',
      tags: ['sources'],
      params: SourceParams,
      response: SyncRunResp,
      errors: ['conflict'],
      handler: async ({ principal, params }) =>
        syncRunResp(await sources.cancel(principal.workspaceId, params.corpus_id, params.source_id)),
    }),
  ]
}
