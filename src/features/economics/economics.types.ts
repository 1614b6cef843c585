import type { ChatEvent, ChatResult, StreamMetrics } from '../answers/answers.service'
import type { QueryCost, RateCard, Strategy } from './lib/cost'

/** One strategy's answer in a comparison, with its measured CPU time and its cost on the rate card. */
export interface CompareRun {
  key: Strategy
  result: ChatResult
  cpuMs: number
  cost: QueryCost
}

/** The same question answered by each strategy asked for, and what each cost. */
export interface Comparison {
  runs: CompareRun[]
  queriesPerMonth: number
  side: 'both' | Strategy
  generator: 'extractive' | 'llm'
  rates: RateCard
}

/**
 * A streamed comparison: the answer's sources and text as the answers stream gives them, then one
 * `summary` with the measured figures and the cost per query.
 */
export type CompareEvent =
  | Exclude<ChatEvent, { type: 'done' }>
  | {
      type: 'summary'
      key: Strategy
      metrics: StreamMetrics
      cpuMs: number
      cost: QueryCost
      queriesPerMonth: number
    }
