/**
 * The cost model: what a query and an onboarding run cost on a configurable rate card, computed from
 * work that was measured (CPU time, tokens read and written, memory held warm), never from guesses.
 * The formulas are documented in docs/economics.md; tests check them against hand-computed numbers.
 */

/** The rate card (configuration section `[rates]`), in the wire's snake_case. */
export interface RateCard {
  cpu_second_usd: number
  memory_gb_month_usd: number
  gpu_hour_usd: number
  prefill_tokens_per_second: number
  decode_tokens_per_second: number
  utilisation: number
}

/** The two serving strategies. */
export type Strategy = 'cart' | 'rag'

/** Measured work of one query with one strategy. */
export interface QueryWork {
  /** CPU time the query took in this process, in milliseconds. */
  cpuMs: number
  /** Tokens of context the generator read (the prompt, with a model server). */
  contextTokens: number
  /** Tokens of the answer written. */
  outputTokens: number
  /** Memory the strategy keeps warm for the base (cartridges for cart), in bytes. */
  warmBytes: number
  /** Whether a model server wrote the answer (then GPU time is charged). */
  modelServer: boolean
}

/** A query's cost, split by what it pays for, in USD. */
export interface QueryCost {
  cpu: number
  memory: number
  gpu: number
  total: number
}

/** Bytes in the GB of the memory price (clouds bill GiB). */
export const GB = 1024 ** 3

/** GPU-seconds a query holds the model server: prefill plus decode, with idle time charged in. */
export function gpuSeconds(work: Pick<QueryWork, 'contextTokens' | 'outputTokens'>, rates: RateCard): number {
  const busy =
    work.contextTokens / rates.prefill_tokens_per_second + work.outputTokens / rates.decode_tokens_per_second
  return busy / rates.utilisation
}

/**
 * Cost of one query: CPU-seconds at the CPU price, plus the month's price of the memory held warm
 * spread over the month's queries, plus (model server only) GPU-seconds at the GPU-hour price.
 */
export function queryCost(work: QueryWork, rates: RateCard, queriesPerMonth: number): QueryCost {
  const cpu = (work.cpuMs / 1000) * rates.cpu_second_usd
  const memory = ((work.warmBytes / GB) * rates.memory_gb_month_usd) / queriesPerMonth
  const gpu = work.modelServer ? (gpuSeconds(work, rates) / 3600) * rates.gpu_hour_usd : 0
  return { cpu, memory, gpu, total: cpu + memory + gpu }
}

/** The one-off cost of onboarding: its measured CPU-seconds at the CPU price. */
export function onboardingCost(trainCpuMs: number, rates: RateCard): number {
  return (trainCpuMs / 1000) * rates.cpu_second_usd
}

/**
 * Queries after which onboarding has paid for itself: onboarding cost / (rag cost per query - cart
 * cost per query), rounded up. Null when cart is not cheaper per query (it never pays off).
 */
export function breakEvenQueries(
  onboarding: number,
  ragPerQuery: number,
  cartPerQuery: number,
): number | null {
  const saving = ragPerQuery - cartPerQuery
  if (!(saving > 0)) return null
  // 12 significant digits first, so 40.000000000000007 (float noise) is 40 queries, not 41.
  return Math.ceil(Number((onboarding / saving).toPrecision(12)))
}

/** How many times `other` is as large as `base` (e.g. rag cost / cart cost); null when undefined. */
export function ratio(other: number | undefined, base: number | undefined): number | null {
  if (other === undefined || base === undefined || !(base > 0) || !Number.isFinite(other)) return null
  return round(other / base, 3)
}

/** Rounds money to 6 significant digits (per-query costs are millionths of a dollar). */
export function money(x: number): number {
  return x === 0 ? 0 : Number(x.toPrecision(6))
}

/** Rounds to `digits` decimals. */
export function round(x: number, digits = 2): number {
  const f = 10 ** digits
  return Math.round(x * f) / f
}

/** Tokens in a text of `chars` characters, by the engine's rule of four characters a token. */
export function tokensOfChars(chars: number): number {
  return Math.ceil(chars / 4)
}
