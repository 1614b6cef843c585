// The API's shapes the admin pages read: API keys, usage, platform status and the MCP surface
// (src/features/{keys,usage,status,mcp}/*.schemas.ts are the reference).

export type Scope = 'ingest' | 'query' | 'admin'

/** An API key as listed; the secret is never part of it. */
export interface ApiKey {
  id: string
  name: string
  /** First 12 characters of the secret. */
  prefix: string
  scopes: Scope[]
  last_used_at: string | null
  expires_at: string | null
  revoked_at: string | null
  created_at: string
}

/** The create answer: the only time the secret (`key`) is ever shown. */
export interface ApiKeyCreated extends ApiKey {
  key: string
}

export interface Usage {
  period: { start: string; end: string; days: number }
  totals: {
    queries: number
    bases: number
    documents: number
    storage_bytes: number
    members: number
    api_keys: number
  }
  bases: {
    corpus_id: string
    name: string | null
    queries: number
    documents: number
    storage_bytes: number
  }[]
  /** One entry per day of the period, oldest first, zeros included. */
  daily: { date: string; queries: number }[]
}

export type ComponentState = 'operational' | 'degraded' | 'down' | 'disabled'

export interface PlatformStatus {
  status: 'operational' | 'degraded'
  version: string
  checked_at: string
  cache_seconds: number
  components: { name: string; status: ComponentState; latency_ms?: number; detail?: string }[]
}

export interface Slo {
  window_days: number
  availability: { target_percent: number }
  latency: { p50_ms: number; p99_ms: number }
}

/** A base as the MCP page needs it (GET /corpora). */
export interface BaseSummary {
  id: string
  name: string
  status: string
  n_documents: number
}

/** `GET /mcp/{id}/meta`: a base as agent catalogs see it, with its endpoints (paths). */
export interface McpMeta {
  id: string
  name: string
  status: string
  description: string | null
  n_documents: number
  documents_ready: number
  updated_at: string
  endpoints: { query: string; documents: string; mcp: string }
}
