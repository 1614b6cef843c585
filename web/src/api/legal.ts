/** The legal routes the Plan page and its acceptance dialog call: documents, status, accepting. */
import { http, ok, publicHttp } from './client'
import type { components } from './openapi.gen'

type Schemas = components['schemas']
/** Every document's current version and whether the workspace accepted it. */
export type LegalStatus = Schemas['LegalStatusResp']
export type LegalStatusItem = LegalStatus['documents'][number]
/** A document's current version, title and text (Markdown). */
export type LegalDocument = Schemas['LegalDocumentResp']
/** An acceptance: who, when, which version and text. */
export type LegalReceipt = Schemas['LegalReceiptResp']

/** The workspace's acceptance of each document. */
export function getLegalStatus(signal?: AbortSignal): Promise<LegalStatus> {
  return ok(http.GET('/v1/legal/status', { signal }))
}

/** A document's current version and text (public). */
export function getLegalDocument(document: string, signal?: AbortSignal): Promise<LegalDocument> {
  return ok(publicHttp.GET('/v1/legal/{document}', { params: { path: { document } }, signal }))
}

/** The workspace's latest acceptance of a document (404 when never accepted). */
export function getLegalReceipt(document: string, signal?: AbortSignal): Promise<LegalReceipt> {
  return ok(http.GET('/v1/legal/{document}/receipt', { params: { path: { document } }, signal }))
}

/** Accepts a document's version on the workspace's behalf (admins); answers the receipt. */
export function acceptLegal(document: string, version: string): Promise<LegalReceipt> {
  return ok(http.POST('/v1/legal/accept', { body: { document, version } }))
}
