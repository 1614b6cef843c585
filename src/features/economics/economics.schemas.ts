import { Type } from '@sinclair/typebox'
import { namedObject } from '../../platform/http/schema'
import type { SseEvent } from '../../platform/http/sse'
import { Metrics, Source, toChatSse, toSourceResp, toStreamMetricsResp } from '../answers/answers.schemas'
import type { CompareEvent, Comparison } from './economics.types'
import type { QueryCost } from './lib/cost'
import { money, ratio, round } from './lib/cost'

const Strategy = Type.Union([Type.Literal('cart'), Type.Literal('rag')])

const QueriesPerMonth = Type.Integer({
  minimum: 1,
  maximum: 100_000_000,
  default: 100_000,
  description: 'Queries a month the base is expected to serve; spreads the monthly memory cost over them.',
})

export const CompareQuery = Type.Object({
  queries_per_month: Type.Optional(QueriesPerMonth),
  side: Type.Optional(
    Type.Union([Type.Literal('both'), Type.Literal('cart'), Type.Literal('rag')], { default: 'both' }),
  ),
})

export const CompareStreamQuery = Type.Object({
  queries_per_month: Type.Optional(QueriesPerMonth),
  side: Type.Optional(Type.Union([Type.Literal('cart'), Type.Literal('rag')], { default: 'cart' })),
})

export const EconomicsQuery = Type.Object({ queries_per_month: Type.Optional(QueriesPerMonth) })

const Money = Type.Number({ description: 'US dollars.' })

const CostBreakdown = namedObject('CostBreakdown', { cpu: Money, memory: Money, gpu: Money })

export const CompareStrategy = namedObject('CompareStrategy', {
  key: Strategy,
  answer: Type.String(),
  latency_ms: Type.Number(),
  ttft_ms: Type.Number(),
  context_tokens: Type.Integer(),
  used_docs: Type.Array(Type.String()),
  sources: Type.Array(Source),
  cost_per_query: Money,
  cost_per_month: Money,
  cpu_ms: Type.Number({ description: 'Measured CPU time of the query, in milliseconds.' }),
  cost_breakdown: CostBreakdown,
})

export const RateCardResp = namedObject('RateCardResp', {
  cpu_second_usd: Type.Number(),
  memory_gb_month_usd: Type.Number(),
  gpu_hour_usd: Type.Number(),
  prefill_tokens_per_second: Type.Number(),
  decode_tokens_per_second: Type.Number(),
  utilisation: Type.Number(),
})

export const CompareResp = namedObject('CompareResp', {
  strategies: Type.Array(CompareStrategy),
  summary: Type.Object({
    cheaper_than_rag_x: Type.Union([Type.Number(), Type.Null()], {
      description: 'rag cost per query / cart cost per query (null unless both ran).',
    }),
    faster_than_rag_x: Type.Union([Type.Number(), Type.Null()], {
      description: 'rag latency / cart latency (null unless both ran).',
    }),
  }),
  queries_per_month: Type.Integer(),
  side: Type.String(),
  generator: Type.String({ description: '`extractive` or `llm`.' }),
  rate_card: RateCardResp,
})

const PerStrategy = namedObject('PerStrategy', { cart: Money, rag: Money })

export const EconomicsResp = namedObject('EconomicsResp', {
  trained: Type.Boolean({ description: 'Every document of the base is onboarded (status `ready`).' }),
  n_cartridges: Type.Integer(),
  corpus_tokens: Type.Integer(),
  train_seconds: Type.Number({ description: 'Measured CPU-seconds of the onboarding that built the base.' }),
  train_cost: Money,
  queries_per_month: Type.Integer(),
  per_query: PerStrategy,
  per_month: PerStrategy,
  breakeven_vs_rag: Type.Union([Type.Integer(), Type.Null()], {
    description: 'Queries after which onboarding has paid for itself; null when cart is not cheaper.',
  }),
  rate_card: RateCardResp,
  measured: Type.Object({
    queries: Type.Integer({ description: 'Probe queries measured per strategy.' }),
    generator: Type.String(),
    warm_bytes: Type.Integer({ description: 'Memory the base’s cartridges hold warm.' }),
    cart: Type.Object({ cpu_ms: Type.Number(), context_tokens: Type.Number(), output_tokens: Type.Number() }),
    rag: Type.Object({ cpu_ms: Type.Number(), context_tokens: Type.Number(), output_tokens: Type.Number() }),
  }),
})

/** `summary`: the compare stream's terminal event, with the measured metrics and cost per query. */
export const CompareSummaryEvent = namedObject('CompareSummaryEvent', {
  summary: Type.Literal(true),
  key: Strategy,
  metrics: Type.Composite([Metrics, Type.Object({ cpu_ms: Type.Number() })], { additionalProperties: true }),
  cost_per_query: Money,
  cost_per_month: Money,
  cost_breakdown: CostBreakdown,
  queries_per_month: Type.Integer(),
})

/** A cost's parts, rounded for the wire. */
function breakdown(cost: QueryCost) {
  return { cpu: money(cost.cpu), memory: money(cost.memory), gpu: money(cost.gpu) }
}

/** CompareResp: each strategy's answer and cost, and how cart compares with rag. */
export function toCompareResp(c: Comparison) {
  const qpm = c.queriesPerMonth
  const strategies = c.runs.map(({ key, result, cpuMs, cost }) => ({
    key,
    answer: result.answer,
    latency_ms: result.metrics.latencyMs,
    ttft_ms: result.metrics.ttftMs,
    context_tokens: result.metrics.contextTokens,
    used_docs: result.usedDocs,
    sources: result.sources.map(toSourceResp),
    cost_per_query: money(cost.total),
    cost_per_month: money(cost.total * qpm),
    cpu_ms: round(cpuMs, 3),
    cost_breakdown: breakdown(cost),
  }))
  const cart = strategies.find((s) => s.key === 'cart')
  const rag = strategies.find((s) => s.key === 'rag')
  return {
    strategies,
    summary: {
      cheaper_than_rag_x: ratio(rag?.cost_per_query, cart?.cost_per_query),
      faster_than_rag_x: ratio(rag?.latency_ms, cart?.latency_ms),
    },
    queries_per_month: qpm,
    side: c.side,
    generator: c.generator,
    rate_card: c.rates,
  }
}

/** A compare stream's event on the wire: the answer's `head` and `delta`s, then `summary`. */
export function toCompareSse(e: CompareEvent): SseEvent {
  if (e.type !== 'summary') return toChatSse(e)
  return {
    event: 'summary',
    data: {
      summary: true,
      key: e.key,
      metrics: { ...toStreamMetricsResp(e.metrics), cpu_ms: round(e.cpuMs, 3) },
      cost_per_query: money(e.cost.total),
      cost_per_month: money(e.cost.total * e.queriesPerMonth),
      cost_breakdown: breakdown(e.cost),
      queries_per_month: e.queriesPerMonth,
    },
  }
}
