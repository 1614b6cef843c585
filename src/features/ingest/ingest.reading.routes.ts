import { Type } from '@sinclair/typebox'
import { actorOf } from '../../platform/auth/principal'
import { attachmentDisposition } from '../../platform/http/content-disposition'
import { defineRoute, type RouteDef } from '../../platform/http/route'
import { SECURITY_DEFAULTS } from '../../platform/http/security-headers'
import {
  DocumentFileParams,
  DocumentTextQuery,
  DocumentTextViewResp,
  documentTextViewResp,
} from './ingest.reading.schemas'
import type { IngestService } from './ingest.service'
import { TEXT_WINDOW_MAX } from './lib/reading'

// An uploaded file is served as a download and can never run on this origin: `attachment` keeps a
// browser from showing it, `nosniff` from guessing it is a page, and the sandbox (no scripts, an
// opaque origin, nothing loaded) holds even if it is opened anyway, an HTML or SVG file included.
const RAW_POLICY = "sandbox; default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
// A declared type is served only in its plain form; anything else is bytes.
const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*(\s*;\s*charset=[a-z0-9_.:-]+)?$/i

const SCOPE_NOTE =
  'Reading a document needs what asking the base does: a session of the workspace, or an API key with `query` (its content is what answers quote); an `ingest`-only key is refused with 403. A section id reads its file.'

/** Reading documents back: their extracted text (for a viewer of cited passages) and their files. */
export function readingRoutes(ingest: IngestService): RouteDef[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/corpora/:corpus_id/documents/:document_id/text',
      auth: 'bearer',
      scope: 'query',
      summary: "A document's extracted text, with its pages and sections",
      description: `The text as the answers read it, a window at a time: at most ${TEXT_WINDOW_MAX.toLocaleString('en')} UTF-16 code units from \`offset\` (ask again from \`next_offset\`). \`pages\` (PDFs) and \`sections\` are ranges of the whole text, so a source's \`start\`, \`end\` and \`page\` open it at the cited passage. 409 \`document_not_ready\` while the text is not extracted (or could not be). ${SCOPE_NOTE}`,
      tags: ['documents'],
      params: DocumentFileParams,
      query: DocumentTextQuery,
      response: DocumentTextViewResp,
      errors: ['document_not_ready'],
      handler: async ({ principal, params, query }) =>
        documentTextViewResp(
          await ingest.readText(principal.workspaceId, params.corpus_id, params.document_id, query),
        ),
    }),
    defineRoute({
      method: 'GET',
      path: '/corpora/:corpus_id/documents/:document_id/raw',
      auth: 'bearer',
      scope: 'query',
      summary: 'Download the original file of a document',
      description: `The bytes as uploaded, streamed, with the type they were read as, as an attachment named after the file (\`filename*\` in UTF-8; the plain \`filename\` in ASCII, without control or direction characters). It never runs in a browser: \`X-Content-Type-Options: nosniff\` and a sandboxing \`Content-Security-Policy\`. Each download is written to the audit log (\`document.downloaded\`). ${SCOPE_NOTE}`,
      tags: ['documents'],
      params: DocumentFileParams,
      produces: 'application/octet-stream',
      response: Type.String({ format: 'binary' }),
      handler: async ({ principal, params, ip, requestId }) => {
        const actor = actorOf(principal, ip, requestId)
        const file = await ingest.readRaw(principal.workspaceId, params.corpus_id, params.document_id, actor)
        const doc = file.document
        const type = doc.content_type && MEDIA_TYPE.test(doc.content_type) ? doc.content_type : null
        return new Response(file.body, {
          headers: {
            ...SECURITY_DEFAULTS,
            'content-type': type ?? 'application/octet-stream',
            'content-length': String(file.size),
            'content-disposition': attachmentDisposition(doc.path),
            'content-security-policy': RAW_POLICY,
            ...(doc.sha256 ? { etag: `"${doc.sha256}"` } : {}),
          },
        })
      },
    }),
  ]
}
