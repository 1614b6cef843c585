import { defineRoute, type RouteDef } from '../../platform/http/route'
import {
  LegalAcceptReq,
  LegalDocumentParams,
  LegalDocumentResp,
  LegalReceiptResp,
  LegalStatusResp,
  toDocumentResp,
  toReceiptResp,
  toStatusResp,
} from './legal.schemas'
import type { LegalService } from './legal.service'

const TAGS = ['legal']

/** `/v1/legal/*` (spec, Legal): documents are public; status any member's; accepting an admin's. */
export function legalRoutes(legal: LegalService): RouteDef[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/legal/status',
      mount: 'v1',
      auth: 'bearer',
      summary: "The current version of every legal document and whether the caller's workspace accepted it",
      tags: TAGS,
      response: LegalStatusResp,
      handler: async ({ principal }) => toStatusResp(await legal.status(principal.workspaceId)),
    }),
    defineRoute({
      method: 'POST',
      path: '/legal/accept',
      mount: 'v1',
      auth: 'admin',
      scope: 'admin',
      summary: "Accept the current version of a legal document on the workspace's behalf",
      description:
        'Records who, when, from which client address, and the SHA-256 of the exact text; answers the receipt. Only the current version can be accepted (409 `legal_version_outdated` names it); accepting the same version again answers the first receipt and records nothing.',
      tags: TAGS,
      body: LegalAcceptReq,
      response: LegalReceiptResp,
      errors: ['legal_version_outdated'],
      handler: async ({ principal, body, ip, requestId }) => {
        const row = await legal.accept(principal, body.document, body.version, { ip, requestId })
        return toReceiptResp(row, legal.document(body.document).version)
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/legal/:document',
      mount: 'v1',
      auth: 'none',
      summary: 'A legal document: its current version, title, text and the SHA-256 of the text',
      tags: TAGS,
      params: LegalDocumentParams,
      response: LegalDocumentResp,
      handler: ({ params }) => toDocumentResp(legal.document(params.document)),
    }),
    defineRoute({
      method: 'GET',
      path: '/legal/:document/receipt',
      mount: 'v1',
      auth: 'bearer',
      summary: "The workspace's latest acceptance of a legal document: who, when, from where, which text",
      description: 'A 404 when the workspace never accepted any version of it.',
      tags: TAGS,
      params: LegalDocumentParams,
      response: LegalReceiptResp,
      handler: async ({ principal, params }) => {
        const { row, current } = await legal.receipt(principal.workspaceId, params.document)
        return toReceiptResp(row, current.version)
      },
    }),
  ]
}
