import type { Base, DocumentText, McpAnswer, McpDocs } from '../mcp.schemas'
import type { McpBackend } from './tools'

/** A refusal of the remote Engram (or no answer at all), carried to the agent as a tool error. */
export class RemoteFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
    readonly details?: unknown,
    readonly retryAfter: number | null = null,
  ) {
    super(message)
    this.name = 'RemoteFailure'
  }
}

/** Where the remote Engram is and the API key to present. */
export interface RemoteOptions {
  url: string
  key: string
  fetch?: (input: string | URL | Request, init?: RequestInit) => Promise<Response>
  /** Per-request timeout in milliseconds. */
  timeoutMs?: number
}

type Query = Record<string, string | number | undefined>

/**
 * The tools' backend for `engram mcp --url`: each call is one request to the remote's `/v1` REST
 * routes with the key as bearer, so the remote applies its own scopes, tenancy and revocation.
 */
export function remoteBackend(opts: RemoteOptions): McpBackend {
  const base = opts.url.replace(/\/+$/, '')
  const doFetch = opts.fetch ?? fetch
  const request = async <T>(method: string, path: string, query: Query = {}, json?: unknown): Promise<T> => {
    const url = new URL(`${base}${path}`)
    for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, String(v))
    let res: Response
    try {
      res = await doFetch(url, {
        method,
        headers: {
          authorization: `Bearer ${opts.key}`,
          accept: 'application/json',
          ...(json === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: json === undefined ? undefined : JSON.stringify(json),
        signal: AbortSignal.timeout(opts.timeoutMs ?? 120_000),
      })
    } catch (e) {
      throw new RemoteFailure('unreachable', `Cannot reach Engram at ${base}: ${(e as Error).message}.`, 0)
    }
    if (res.ok) return (await res.json()) as T
    throw await failureOf(res)
  }
  const id = encodeURIComponent
  return {
    async bases() {
      const out: Base[] = []
      let cursor: string | undefined
      do {
        const page = await request<{ items: (Base & Record<string, unknown>)[]; next_cursor: string | null }>(
          'GET',
          '/v1/corpora',
          { limit: 500, cursor },
        )
        for (const c of page.items) {
          out.push({
            id: c.id,
            name: c.name,
            status: c.status,
            n_documents: c.n_documents,
            documents_ready: c.documents_ready,
            description: c.description ?? null,
          })
        }
        cursor = page.next_cursor ?? undefined
      } while (cursor)
      return out
    },
    query: (baseId, req) => request<McpAnswer>('POST', `/v1/mcp/${id(baseId)}/query`, {}, req),
    documents: (baseId, req) =>
      request<McpDocs>('GET', `/v1/mcp/${id(baseId)}/documents`, {
        q: req.q,
        limit: req.limit,
        offset: req.offset,
      }),
    text: (baseId, documentId, req) =>
      request<DocumentText>('GET', `/v1/mcp/${id(baseId)}/documents/${id(documentId)}/text`, {
        offset: req.offset,
        limit: req.limit,
      }),
  }
}

/** The remote's `/v1` error envelope as a RemoteFailure; anything else by its status. */
async function failureOf(res: Response): Promise<RemoteFailure> {
  const retry = Number(res.headers.get('retry-after'))
  const retryAfter = Number.isFinite(retry) && res.headers.has('retry-after') ? retry : null
  const text = await res.text()
  try {
    const { error } = JSON.parse(text) as { error?: { code: string; message: string; details?: unknown } }
    if (error?.code)
      return new RemoteFailure(error.code, error.message, res.status, error.details, retryAfter)
  } catch {
    // Not JSON: a proxy's page, or an Engram too old to have these routes.
  }
  const message =
    res.status === 404
      ? `Engram answered 404 for ${new URL(res.url || 'http://x').pathname}: not found (or the server has no MCP routes).`
      : `Engram answered HTTP ${res.status}.`
  return new RemoteFailure(`http_${res.status}`, message, res.status, undefined, retryAfter)
}
