import { type Static, Type } from '@sinclair/typebox'
import { iso } from '../../platform/clock/clock'
import { namedObject } from '../../platform/http/schema'
import { LEGAL_DOCUMENTS, type LegalDocument } from './legal.documents'
import type { AcceptanceRow } from './legal.repo'
import type { LegalStanding } from './legal.service'

const DocumentName = Type.String({
  maxLength: 32,
  description: `The document: ${LEGAL_DOCUMENTS.map((d) => `\`${d}\``).join(', ')}.`,
})
const Sha = Type.String({ description: 'SHA-256 (hex) of the exact `text`.' })
const When = Type.String({ format: 'date-time' })

export const LegalDocumentParams = Type.Object({ document: DocumentName })

export const LegalDocumentResp = namedObject('LegalDocumentResp', {
  document: Type.String(),
  version: Type.String(),
  title: Type.String(),
  text: Type.String({ description: 'The text, Markdown, exactly as accepted; `sha256` is its hash.' }),
  sha256: Sha,
})

export const LegalStatusResp = namedObject('LegalStatusResp', {
  all_accepted: Type.Boolean({
    description: 'Whether the workspace accepted the current version of every document.',
  }),
  documents: Type.Array(
    Type.Object({
      document: Type.String(),
      version: Type.String({ description: 'The current version.' }),
      title: Type.String(),
      sha256: Sha,
      accepted: Type.Boolean({ description: 'Whether the workspace accepted the current version.' }),
      accepted_version: Type.Union([Type.String(), Type.Null()], {
        description: 'The latest version the workspace accepted, which may be an older one; null if none.',
      }),
      accepted_at: Type.Union([When, Type.Null()], { description: 'When it accepted `accepted_version`.' }),
    }),
  ),
})

export const LegalAcceptReq = namedObject('LegalAcceptReq', {
  document: DocumentName,
  version: Type.String({ minLength: 1, maxLength: 64, description: 'The version read: the current one.' }),
})

export const LegalReceiptResp = namedObject('LegalReceiptResp', {
  id: Type.String(),
  document: Type.String(),
  version: Type.String(),
  title: Type.String(),
  sha256: Type.String({ description: 'SHA-256 (hex) of the exact text accepted.' }),
  accepted_by: Type.Object({
    type: Type.String({ description: '`user` or `api_key`.' }),
    id: Type.String(),
  }),
  accepted_at: When,
  address: Type.String({ description: 'The client address the acceptance came from, as the server saw it.' }),
  current: Type.Boolean({ description: 'Whether this is the current version of the document.' }),
  current_version: Type.String(),
})

/** The wire form of a document. */
export function toDocumentResp(d: LegalDocument): Static<typeof LegalDocumentResp> {
  return { document: d.document, version: d.version, title: d.title, text: d.text, sha256: d.sha256 }
}

/** The wire form of a workspace's standing with every document. */
export function toStatusResp(s: LegalStanding[]): Static<typeof LegalStatusResp> {
  return {
    all_accepted: s.every((x) => x.accepted !== undefined),
    documents: s.map(({ doc, accepted, latest }) => ({
      document: doc.document,
      version: doc.version,
      title: doc.title,
      sha256: doc.sha256,
      accepted: accepted !== undefined,
      accepted_version: latest?.version ?? null,
      accepted_at: latest ? iso(new Date(latest.acceptedAt)) : null,
    })),
  }
}

/** The wire form of an acceptance, against the document's current version. */
export function toReceiptResp(r: AcceptanceRow, currentVersion: string): Static<typeof LegalReceiptResp> {
  return {
    id: r.id,
    document: r.document,
    version: r.version,
    title: r.title,
    sha256: r.sha256,
    accepted_by: { type: r.actorType, id: r.actorId },
    accepted_at: iso(new Date(r.acceptedAt)),
    address: r.address,
    current: r.version === currentVersion,
    current_version: currentVersion,
  }
}
