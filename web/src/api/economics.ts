// Compare, scale test and economics as the compare page reads them (economics and scale schemas).
import type { Source, Strategy } from './answers'

export interface CostBreakdown {
  cpu: number
  memory: number
  gpu: number
}

export interface RateCard {
  cpu_second_usd: number
  memory_gb_month_usd: number
  gpu_hour_usd: number
  prefill_tokens_per_second: number
  decode_tokens_per_second: number
  utilisation: number
}

/** One strategy's side of a comparison. */
export interface CompareSide {
  key: Strategy
  answer: string
  latency_ms: number
  ttft_ms: number
  context_tokens: number
  used_docs: string[]
  sources: Source[]
  cost_per_query: number
  cost_per_month: number
  cpu_ms: number
  cost_breakdown: CostBreakdown
}

export interface CompareResp {
  strategies: CompareSide[]
  summary: { cheaper_than_rag_x: number | null; faster_than_rag_x: number | null }
  queries_per_month: number
  side: string
  generator: string
  rate_card: RateCard
}

/** One strategy at one concurrency level of a scale test (times in ms, null when nothing answered). */
export interface LevelStats {
  qps: number
  ok: number
  reqs: number
  ttft: number | null
  ttft_p95: number | null
  lat: number | null
  lat_p95: number | null
  cpu_ms?: number | null
}

export interface LevelRecord {
  level: number
  cart: LevelStats
  rag: LevelStats
  partial?: boolean
}

export interface ScaleStart {
  start: true
  queries: string[]
  levels: number[]
  strategies: string[]
  transport?: string
}

export interface ScaleDone {
  done: true
  stopped: string
  levels_run: number | null
  elapsed_ms?: number
}

export interface ScaleRun {
  id: string
  corpus_id: string
  queries: string[]
  max_concurrency: number
  levels: number[]
  records: LevelRecord[]
  note: string | null
  created_at: string
}

interface Measured {
  cpu_ms: number
  context_tokens: number
  output_tokens: number
}

export interface Economics {
  trained: boolean
  n_cartridges: number
  corpus_tokens: number
  train_seconds: number
  train_cost: number
  queries_per_month: number
  per_query: { cart: number; rag: number }
  per_month: { cart: number; rag: number }
  breakeven_vs_rag: number | null
  rate_card: RateCard
  measured: { queries: number; generator: string; warm_bytes: number; cart: Measured; rag: Measured }
}
