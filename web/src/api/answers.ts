// The answers API as the chat and compare pages read it (answers, economics and scale schemas).
import { errorOf } from './client'
import { session } from './session'

export type Strategy = 'cart' | 'rag'

/** A passage an answer drew on. */
export interface Source {
  id: string
  title: string
  document_id: string
  filename: string
  snippet: string
  score: number
}

/** The stream's `head`: how far the answer can be trusted, and its sources, before any text. */
export interface ChatHead {
  head: true
  answered: boolean
  fallback?: 'extractive'
  fallback_reason?: string
  used_docs: string[]
  sources: Source[]
  condensed_q: string
}

export interface Metrics {
  latency_ms: number
  ttft_ms?: number
  retrieval_ms?: number
  strategy: string
  context_tokens?: number
  generator?: string
  cpu_ms?: number
  fallback?: 'extractive'
  fallback_reason?: string
}

/** One earlier turn of the conversation, sent so that a follow-up is condensed. */
export interface Turn {
  role: 'user' | 'assistant'
  content: string
}

/** The few fields of a base the chat and compare pages show. */
export interface BaseHead {
  id: string
  name: string
  status: string
  n_documents: number
  documents_ready: number
}

/** A base answers questions when ready, or while training once some documents are. */
export function servable(b: BaseHead): boolean {
  return b.status === 'ready' || (b.status === 'training' && b.documents_ready > 0)
}

export interface FeedbackReq {
  rating: 'up' | 'down'
  question?: string
  answer?: string
  source_ids?: string[]
  strategy?: Strategy
}

/**
 * Rates an answer. The feedback route exists only on the unversioned path (`/corpora/...`), so it
 * is called here directly, with the session's bearer token, instead of through `api()`.
 */
export async function sendFeedback(corpusId: string, body: FeedbackReq): Promise<{ id: string }> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' }
  const token = session.value?.token
  if (token) headers.authorization = `Bearer ${token}`
  const res = await fetch(`/corpora/${encodeURIComponent(corpusId)}/feedback`, {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
  })
  if (!res.ok) throw await errorOf(res, Boolean(token))
  return (await res.json()) as { id: string }
}
