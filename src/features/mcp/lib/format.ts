import type { Base, DocumentText, McpAnswer, McpDocs } from '../mcp.schemas'

/** Longest snippet quoted in an answer's source list, in characters. */
const SNIPPET_CHARS = 400

/** The bases as lines an agent can act on. */
export function formatBases(bases: Base[]): string {
  if (bases.length === 0) return 'No document bases are visible to this API key.'
  const lines = bases.map((b) => {
    const head = `- ${b.id} "${b.name}": ${b.status}, ${b.documents_ready}/${b.n_documents} documents ready`
    return b.description ? `${head}. ${b.description}` : head
  })
  return `${bases.length} document base${bases.length === 1 ? '' : 's'}:\n${lines.join('\n')}`
}

/**
 * An answer followed by its numbered sources ([n] filename, page p — snippet) and the pinnable ids used.
 * When the base does not answer the question the passages are listed as the closest found, not as
 * sources; an extractive answer given because the model server failed says so.
 */
export function formatAnswer(a: McpAnswer): string {
  const out = [a.answer]
  if (a.fallback) out.push(`(${a.fallback_reason ?? 'The answer is the extractive one.'})`)
  if (a.sources.length > 0) {
    out.push('', a.answered ? 'Sources:' : 'Closest passages (they do not answer the question):')
    a.sources.forEach((s, i) => {
      // A PDF's page, so an agent can point its reader at it as the console's viewer does.
      const where = s.page === null ? s.filename : `${s.filename}, page ${s.page}`
      out.push(`[${i + 1}] ${where} — ${oneLine(s.snippet, SNIPPET_CHARS)} (document ${s.id})`)
    })
  }
  if (a.used_docs.length > 0) {
    out.push('', `Documents used (pin them with doc_ids): ${a.used_docs.join(', ')}`)
  }
  return out.join('\n')
}

/** A page of the inventory, one document a line, and how to get the next page. */
export function formatDocuments(d: McpDocs): string {
  if (d.items.length === 0) {
    return d.total === 0
      ? 'No documents match.'
      : `No documents at offset ${d.offset}; there are ${d.total} in all.`
  }
  const lines = d.items.map((x) => {
    const head = `- ${x.id} ${x.filename} (${x.status}, ${x.size} bytes) "${x.title}"`
    return x.description ? `${head}: ${oneLine(x.description, 240)}` : head
  })
  const last = d.offset + d.items.length
  const more = last < d.total ? ` Call again with offset=${last} for more.` : ''
  return `Documents ${d.offset + 1}-${last} of ${d.total}.${more}\n${lines.join('\n')}`
}

/** A page of a document's text with a header saying where it is and what is left. */
export function formatText(t: DocumentText): string {
  const end = t.offset + t.text.length
  const where = `${t.filename} (${t.id}), characters ${t.offset}-${end} of ${t.total_chars}`
  const left =
    t.next_offset === null
      ? 'End of document.'
      : `${t.remaining_chars} characters left; call again with offset=${t.next_offset}.`
  return `${where}. ${left}\n\n${t.text}`
}

interface Failure {
  code?: unknown
  status?: unknown
  message?: unknown
  details?: unknown
  headers?: Record<string, string>
  retryAfter?: number | null
}

/** A failure as one clear sentence or two an agent can act on, ending with the error code. */
export function formatError(e: unknown): string {
  const f = (typeof e === 'object' && e !== null ? e : {}) as Failure
  const code = typeof f.code === 'string' ? f.code : null
  if (code === null) return 'The tool failed unexpectedly (internal_error). Try again later.'
  const message = typeof f.message === 'string' ? f.message : 'The request failed.'
  switch (code) {
    case 'validation_error':
      return `Invalid arguments: ${issuesText(f.details) ?? message} (validation_error)`
    case 'serving_unavailable': {
      const retry = f.retryAfter ?? Number(f.headers?.['retry-after'] ?? Number.NaN)
      const when = Number.isFinite(retry) ? ` Retry in ${retry} s.` : ''
      return `${message}${when} (serving_unavailable)`
    }
    case 'not_found':
      return `${message} Call list_bases for base ids and list_documents for document ids. (not_found)`
    case 'corpus_not_ready':
      return `${message} Only bases with status "ready" answer; see list_bases. (corpus_not_ready)`
    default:
      return `${message} (${code})`
  }
}

function issuesText(details: unknown): string | null {
  if (!Array.isArray(details) || details.length === 0) return null
  return details
    .map((i: { loc?: unknown[]; msg?: string }) => {
      const path = (i.loc ?? []).slice(1).join('.') || 'arguments'
      return `${path}: ${i.msg ?? 'invalid'}`
    })
    .join('; ')
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`
}
