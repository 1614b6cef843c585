import { Type } from '@sinclair/typebox'
import { actorOf } from '../../platform/auth/principal'
import { fail } from '../../platform/errors/errors'
import { defineRoute, type RouteDef, reply } from '../../platform/http/route'
import {
  CorpusCreateReq,
  CorpusParams,
  CorpusResp,
  CorpusUpdateReq,
  corpusResp,
  DocumentParams,
  DocumentResp,
  DocumentsQuery,
  ManifestQuery,
} from './corpora.schemas'
import type { CorporaService } from './corpora.service'

/** Header on a delete that happened while a build of the base was running (the receipt). */
export const BUILD_RUNNING_HEADER = 'x-build-running'

/** Routes of the spec's "Document bases" section (upload lives with ingest). */
export function corporaRoutes(corpora: CorporaService): RouteDef[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/corpora',
      auth: 'bearer',
      scope: 'ingest',
      summary: 'Create a document base',
      tags: ['corpora'],
      errors: ['plan_limit_reached'],
      body: CorpusCreateReq,
      response: CorpusResp,
      handler: async ({ principal, body }) =>
        corpusResp(
          await corpora.create(principal.workspaceId, body.name, {
            ...(body.auto_onboard === undefined ? {} : { autoOnboard: body.auto_onboard }),
          }),
        ),
    }),
    defineRoute({
      method: 'GET',
      path: '/corpora',
      auth: 'bearer',
      // A key bound to some bases lists those only.
      boundKeys: 'served',
      summary: 'List document bases, newest first',
      tags: ['corpora'],
      list: true,
      response: CorpusResp,
      handler: ({ principal, page }) => corpora.list(principal.workspaceId, page, principal.corpusIds),
    }),
    defineRoute({
      method: 'GET',
      path: '/corpora/:corpus_id',
      auth: 'bearer',
      summary: 'Get a document base',
      tags: ['corpora'],
      params: CorpusParams,
      response: CorpusResp,
      handler: async ({ principal, params }) =>
        corpusResp(await corpora.get(principal.workspaceId, params.corpus_id)),
    }),
    defineRoute({
      method: 'PATCH',
      path: '/corpora/:corpus_id',
      auth: 'bearer',
      scope: 'ingest',
      summary: "Change a document base's settings",
      description: 'Fields absent from the body stay as they are.',
      tags: ['corpora'],
      params: CorpusParams,
      body: CorpusUpdateReq,
      response: CorpusResp,
      handler: async ({ principal, params, body, ip, requestId }) =>
        corpusResp(
          await corpora.update(
            principal.workspaceId,
            params.corpus_id,
            body.auto_onboard === undefined ? {} : { autoOnboard: body.auto_onboard },
            actorOf(principal, ip, requestId),
          ),
        ),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/corpora/:corpus_id',
      auth: 'bearer',
      scope: 'ingest',
      summary: 'Delete a document base and everything stored for it',
      tags: ['corpora'],
      params: CorpusParams,
      status: 204,
      handler: async ({ principal, params, ip, requestId }) => {
        // The service tells the receipt (audit row) in the transaction that deletes.
        const receipt = await corpora.deleteCorpus(
          principal.workspaceId,
          params.corpus_id,
          actorOf(principal, ip, requestId),
        )
        return reply(204, undefined, receipt.buildRunning ? { [BUILD_RUNNING_HEADER]: 'true' } : {})
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/corpora/:corpus_id/documents',
      auth: 'bearer',
      summary: 'List the documents of a base (files; sections with sections=true)',
      tags: ['documents'],
      params: CorpusParams,
      query: DocumentsQuery,
      list: true,
      response: DocumentResp,
      handler: ({ principal, params, query, page }) =>
        corpora.documents(principal.workspaceId, params.corpus_id, query.sections ?? false, page),
    }),
    defineRoute({
      method: 'GET',
      path: '/corpora/:corpus_id/documents/manifest.csv',
      auth: 'bearer',
      summary: 'CSV manifest of the documents uploaded by hand, CLI or picker',
      tags: ['documents'],
      params: CorpusParams,
      query: ManifestQuery,
      produces: 'text/csv',
      response: Type.String(),
      handler: async ({ principal, params, query }) => {
        if ((query.source ?? 'upload') !== 'upload') {
          throw fail('validation_error', 'Only source=upload has a manifest.', [
            { loc: ['query', 'source'], msg: "Input should be 'upload'", type: 'literal_error' },
          ])
        }
        const csv = await corpora.manifestCsv(principal.workspaceId, params.corpus_id)
        return new Response(csv, {
          headers: {
            'content-type': 'text/csv; charset=utf-8',
            'content-disposition': `attachment; filename="${params.corpus_id}-manifest.csv"`,
          },
        })
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/corpora/:corpus_id/documents/:document_id',
      auth: 'bearer',
      scope: 'ingest',
      summary: 'Delete a document everywhere (not blocked by a running build)',
      description: `When a build was running the response carries \`${BUILD_RUNNING_HEADER}: true\`.`,
      tags: ['documents'],
      params: DocumentParams,
      status: 204,
      handler: async ({ principal, params, ip, requestId }) => {
        // The deletion receipt (what went, whether a build was running) is written with the delete.
        const receipt = await corpora.deleteDocument(
          principal.workspaceId,
          params.corpus_id,
          params.document_id,
          actorOf(principal, ip, requestId),
        )
        return reply(204, undefined, receipt.buildRunning ? { [BUILD_RUNNING_HEADER]: 'true' } : {})
      },
    }),
  ]
}
