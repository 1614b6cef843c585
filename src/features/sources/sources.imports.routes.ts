import { Type } from '@sinclair/typebox'
import { iso } from '../../platform/clock/clock'
import { defineRoute, type RouteDef, reply } from '../../platform/http/route'
import { syncRunResp } from '../ingest/ingest.service'
import type { ImportState, Imports } from './sources.imports'
import { ImportReq, ImportStatusResp } from './sources.schemas'

const CorpusParams = Type.Object({ corpus_id: Type.String({ maxLength: 64 }) })

/** The wire shape of import-status. */
function importStatusResp(s: ImportState) {
  if (s.state === 'none') return { state: 'none' }
  return {
    state: s.state,
    id: s.row.id,
    connection_id: s.row.connectionId,
    kind: s.kind,
    folder: s.row.folder,
    run: s.run ? syncRunResp(s.run) : null,
    started_at: iso(new Date(s.run?.startedAt ?? s.row.createdAt)),
    finished_at: s.run?.finishedAt ? iso(new Date(s.run.finishedAt)) : null,
  }
}

/** The spec's import routes, on both mounts: a one-time copy of a folder through a connection. */
export function importRoutes(imports: Imports): RouteDef[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/corpora/:corpus_id/import',
      auth: 'bearer',
      scope: 'ingest',
      summary: 'Import a folder through a connection (once; poll import-status)',
      description:
        "The base and the connection must both be the caller's (else 404). 409 `import_in_progress` while an import of the base runs. An import copies; it never deletes. 403 `plan_limit_reached` when the workspace is at its plan's documents or storage cap; files past a cap during the import are listed in its run's errors with that code.",
      tags: ['sources'],
      params: CorpusParams,
      body: ImportReq,
      status: 202,
      response: ImportStatusResp,
      errors: [
        'import_in_progress',
        'invalid_folder',
        'folder_root_not_allowed',
        'egress_denied',
        'plan_limit_reached',
      ],
      handler: async ({ principal, params, body }) =>
        reply(202, importStatusResp(await imports.start(principal.workspaceId, params.corpus_id, body))),
    }),
    defineRoute({
      method: 'GET',
      path: '/corpora/:corpus_id/import-status',
      auth: 'bearer',
      summary: "The base's latest import and its counters; `state: none` before any",
      tags: ['sources'],
      params: CorpusParams,
      response: ImportStatusResp,
      handler: async ({ principal, params }) =>
        importStatusResp(await imports.status(principal.workspaceId, params.corpus_id)),
    }),
  ]
}
