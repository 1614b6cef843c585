import type { Static } from '@sinclair/typebox'
import { type Principal, reachesBase, type Scope } from '../../platform/auth/principal'
import { iso } from '../../platform/clock/clock'
import { fail, notFound } from '../../platform/errors/errors'
import type { ObjectStore } from '../../platform/storage/object-store'
import { type ChatReq, toChatResp } from '../answers/answers.schemas'
import type { AnswersService } from '../answers/answers.service'
import type { CorporaService, DocumentRow } from '../corpora/corpora.service'
import { TextCache } from './lib/text'
import {
  type Base,
  DOCS_LIMIT_DEFAULT,
  type DocumentText,
  type McpAnswer,
  type McpDocs,
  type McpMeta,
  TEXT_LIMIT_DEFAULT,
} from './mcp.schemas'

export interface McpDeps {
  corpora: CorporaService
  answers: AnswersService
  objects: ObjectStore
}

/** Paging and filter of the document inventory. */
export interface DocsRequest {
  q?: string
  limit?: number
  offset?: number
}

/** A window of a document's text, in characters. */
export interface TextRequest {
  offset?: number
  limit?: number
}

/** A principal without this scope is refused as the REST route would refuse it (403). */
export function requireScope(principal: Principal, scope: Scope): void {
  if (principal.scopes !== null && !principal.scopes.includes(scope)) {
    throw fail('missing_scope', `API key missing required scope: ${scope}`)
  }
}

/**
 * The agent surface over the bases: what the MCP REST routes, the hosted MCP server and `engram mcp`
 * share. Every call is scoped to the principal's workspace; another workspace's base is a 404.
 */
export class McpService {
  private readonly texts: TextCache

  constructor(private readonly d: McpDeps) {
    this.texts = new TextCache(d.objects)
  }

  /** The bases the principal can see (a bound key's only), newest first. */
  async bases(principal: Principal): Promise<Base[]> {
    return (await this.d.corpora.list(principal.workspaceId, null, principal.corpusIds)).items.map((c) => ({
      id: c.id,
      name: c.name,
      status: c.status,
      n_documents: c.n_documents,
      documents_ready: c.documents_ready,
      description: c.description,
    }))
  }

  /**
   * A base the principal reaches: another workspace's, and one a bound key is not bound to, are
   * missing (404). Every tool and route of the agent surface looks its base up here.
   */
  private async base(principal: Principal, corpusId: string) {
    if (!reachesBase(principal, corpusId)) throw notFound('Document base')
    return this.d.corpora.get(principal.workspaceId, corpusId)
  }

  /** Identity, status and catalog description of a base, with where agents reach it. */
  async meta(principal: Principal, corpusId: string): Promise<McpMeta> {
    const c = await this.base(principal, corpusId)
    return {
      id: c.id,
      name: c.name,
      status: c.status,
      description: c.description,
      n_documents: c.n_documents,
      documents_ready: c.documents_ready,
      updated_at: iso(new Date(c.updated_at)),
      endpoints: {
        query: `/v1/mcp/${c.id}/query`,
        documents: `/v1/mcp/${c.id}/documents`,
        mcp: '/mcp-http/',
      },
    }
  }

  /** Answers a question; source ids are the pinnable document ids the inventory lists. */
  async query(principal: Principal, corpusId: string, req: Static<typeof ChatReq>): Promise<McpAnswer> {
    requireScope(principal, 'query')
    await this.base(principal, corpusId)
    const r = toChatResp(await this.d.answers.chat(principal, corpusId, req))
    return {
      ...r,
      metrics: { ...r.metrics, strategy: r.strategy },
      // A non-finite score would serialise as null and break clients that check the output schema.
      sources: r.sources.map((s) => ({
        ...s,
        id: s.document_id,
        passage_id: s.id,
        score: Number.isFinite(s.score) ? s.score : 0,
      })),
    }
  }

  /** The pinnable documents (files, not sections) of a base, by filename, filtered and paged. */
  async documents(principal: Principal, corpusId: string, req: DocsRequest): Promise<McpDocs> {
    await this.base(principal, corpusId)
    const limit = req.limit ?? DOCS_LIMIT_DEFAULT
    const offset = req.offset ?? 0
    let rows = await this.d.corpora.parentDocuments(corpusId)
    const needle = req.q?.toLowerCase()
    if (needle) {
      const descriptions = await mapLimit(rows, DESCRIBE_CONCURRENCY, (r) =>
        this.texts.description(r, titleOf(r)),
      )
      rows = rows.filter(
        (r, i) => r.path.toLowerCase().includes(needle) || descriptions[i]?.toLowerCase().includes(needle),
      )
    }
    const page = rows.slice(offset, offset + limit)
    const items = await Promise.all(
      page.map(async (r) => {
        const title = titleOf(r)
        return {
          id: r.id,
          filename: r.path,
          title,
          description: await this.texts.description(r, title),
          status: r.status,
          size: r.size,
        }
      }),
    )
    return { items, total: rows.length, limit, offset }
  }

  /** A window of a document's extracted text, with how much is left. */
  async text(
    principal: Principal,
    corpusId: string,
    documentId: string,
    req: TextRequest,
  ): Promise<DocumentText> {
    requireScope(principal, 'query')
    await this.base(principal, corpusId)
    const doc = await this.d.corpora.document(corpusId, documentId)
    if (!doc) throw fail('not_found', 'Document not found.')
    const whole = await this.texts.text(doc)
    if (whole === null) {
      const why =
        doc.status === 'failed' && doc.error ? `it failed: ${doc.error}` : `its status is ${doc.status}`
      throw fail('document_not_ready', `The text of ${doc.path} is not available yet (${why}).`)
    }
    const offset = Math.min(req.offset ?? 0, whole.length)
    const end = Math.min(whole.length, offset + (req.limit ?? TEXT_LIMIT_DEFAULT))
    return {
      id: doc.id,
      filename: doc.path,
      title: titleOf(doc),
      offset,
      total_chars: whole.length,
      remaining_chars: whole.length - end,
      next_offset: end < whole.length ? end : null,
      text: whole.slice(offset, end),
    }
  }
}

/** Sidecar reads in flight while describing a whole base (a first `q` search reads every one). */
const DESCRIBE_CONCURRENCY = 16

/** `Promise.all(items.map(fn))` with at most `limit` calls running at once, results in order. */
async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const i = next++
      out[i] = await fn(items[i]!)
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return out
}

/** The title found in the document, else its file name without the extension. */
export function titleOf(doc: Pick<DocumentRow, 'path' | 'section_title'>): string {
  if (doc.section_title?.trim()) return doc.section_title.trim()
  const base = doc.path.split('/').pop() ?? doc.path
  const dot = base.lastIndexOf('.')
  return dot > 0 ? base.slice(0, dot) : base
}
