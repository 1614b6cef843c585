import { actorOf, type Caller, type Principal } from '../../platform/auth/principal'
import type { Clock } from '../../platform/clock/clock'
import { newId, type Random } from '../../platform/crypto/random'
import type { Store } from '../../platform/db/store'
import { fail, notFound } from '../../platform/errors/errors'
import type { Outbox } from '../../platform/events/outbox'
import {
  isLegalDocument,
  LEGAL_DOCUMENTS,
  type LegalDocument,
  type LegalDocumentName,
  loadLegalDocuments,
} from './legal.documents'
import { type AcceptanceRow, LegalRepo } from './legal.repo'

/** Where a workspace admin accepts a document (POST `{document, version}`). */
export const ACCEPT_URL = '/v1/legal/accept'

/** One document as a workspace stands with it. */
export interface LegalStanding {
  doc: LegalDocument
  /** The workspace's acceptance of the current version, if any. */
  accepted: AcceptanceRow | undefined
  /** The workspace's latest acceptance of any version, if any. */
  latest: AcceptanceRow | undefined
}

/** The first document a workspace has not accepted in its current version (billing gates on it). */
export interface Unaccepted {
  document: LegalDocumentName
  version: string
  accept_url: string
}

interface Deps {
  store: Store
  clock: Clock
  random: Random
  events: Outbox
}

/**
 * Legal documents and their acceptance. A workspace accepts, through one of its admins (a session
 * or an API key with `admin`), on behalf of the whole workspace: that is what a paid plan needs.
 */
export class LegalService {
  private readonly repo: LegalRepo
  private readonly docs: Map<LegalDocumentName, LegalDocument>

  constructor(
    private readonly d: Deps,
    dir: string | null,
  ) {
    this.repo = new LegalRepo(d.store)
    this.docs = loadLegalDocuments(dir)
  }

  /** A document's current version; 404 for a name that is not one. */
  document(name: string): LegalDocument {
    if (!isLegalDocument(name)) throw notFound('Legal document')
    return this.docs.get(name)!
  }

  /** Every document, in order, with the workspace's acceptance of it. */
  async status(workspaceId: string): Promise<LegalStanding[]> {
    const out: LegalStanding[] = []
    for (const name of LEGAL_DOCUMENTS) {
      const doc = this.docs.get(name)!
      const accepted = await this.repo.find(workspaceId, name, doc.version)
      out.push({ doc, accepted, latest: await this.repo.latest(workspaceId, name) })
    }
    return out
  }

  /** The first document whose current version the workspace has not accepted, or null when none. */
  async firstUnaccepted(workspaceId: string): Promise<Unaccepted | null> {
    for (const name of LEGAL_DOCUMENTS) {
      const doc = this.docs.get(name)!
      if (!(await this.repo.find(workspaceId, name, doc.version))) {
        return { document: name, version: doc.version, accept_url: ACCEPT_URL }
      }
    }
    return null
  }

  /**
   * Records that the principal's workspace accepts `version` of a document: who, when, from which
   * address, and the SHA-256 of the exact text. Only the current version can be accepted (409
   * `legal_version_outdated` naming it); accepting it again answers the first acceptance unchanged.
   */
  async accept(
    p: Principal,
    name: string,
    version: string,
    caller: Omit<Caller, 'route'>,
  ): Promise<AcceptanceRow> {
    const doc = this.document(name)
    if (version !== doc.version) {
      throw fail(
        'legal_version_outdated',
        `Version ${version} of ${doc.document} is not the current one; the current version is ${doc.version}.`,
        { document: doc.document, current_version: doc.version },
      )
    }
    const actor = actorOf(p, caller.ip, caller.requestId)
    return this.d.store.unit(async () => {
      const before = await this.repo.find(p.workspaceId, doc.document, doc.version)
      if (before) return before
      const row: AcceptanceRow = {
        id: newId(this.d.random, 'lga'),
        workspaceId: p.workspaceId,
        document: doc.document,
        version: doc.version,
        title: doc.title,
        sha256: doc.sha256,
        actorType: actor.type,
        actorId: actor.id ?? '',
        address: caller.ip,
        acceptedAt: this.d.clock.now().getTime(),
      }
      await this.repo.insert(row)
      await this.d.events.publish({
        type: 'legal.accepted',
        workspaceId: p.workspaceId,
        payload: {
          actor,
          target: { type: 'legal_document', id: doc.document },
          details: {
            document: doc.document,
            version: doc.version,
            sha256: doc.sha256,
            acceptance_id: row.id,
          },
        },
      })
      return row
    })
  }

  /** The workspace's latest acceptance of a document; 404 when it never accepted any version. */
  async receipt(workspaceId: string, name: string): Promise<{ row: AcceptanceRow; current: LegalDocument }> {
    const current = this.document(name)
    const row = await this.repo.latest(workspaceId, current.document)
    if (!row) throw notFound('Acceptance')
    return { row, current }
  }
}
