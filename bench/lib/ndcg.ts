import { seededRandom } from './seeded'
// Ranking metrics of the retrieval bench (bench/retrieval.ts): nDCG@k with graded gains, recall@k,
// and a paired bootstrap of the difference between two systems asked the same queries.

/** A query's judgements: each relevant document's graded gain (above 0). */
export type Judged = ReadonlyMap<string, number>

/** Discount of rank `i` (0-based): 1 / log2(i + 2). */
const discount = (i: number) => 1 / Math.log2(i + 2)

/**
 * nDCG@k of a ranking: the sum over its first k documents of (2^gain - 1) / log2(rank + 1), over the
 * same sum for the judgements' ideal order (0 when nothing is judged relevant).
 */
export function ndcgAt(ranked: readonly string[], judged: Judged, k = 10): number {
  let dcg = 0
  for (const [i, doc] of ranked.slice(0, k).entries()) dcg += (2 ** (judged.get(doc) ?? 0) - 1) * discount(i)
  const ideal = [...judged.values()].sort((a, b) => b - a).slice(0, k)
  const idcg = ideal.reduce((sum, gain, i) => sum + (2 ** gain - 1) * discount(i), 0)
  return idcg > 0 ? dcg / idcg : 0
}

/** Recall@k: the share of the relevant documents found in the first k. */
export function recallAt(ranked: readonly string[], judged: Judged, k = 10): number {
  if (judged.size === 0) return 0
  return ranked.slice(0, k).filter((doc) => (judged.get(doc) ?? 0) > 0).length / judged.size
}

/** A mean difference and its 95% interval. */
export interface Interval {
  mean: number
  low: number
  high: number
}

/**
 * Paired bootstrap of mean(a - b) over queries (a[i] and b[i] are the same query's scores): resamples
 * the queries with replacement `resamples` times and takes the 2.5th and 97.5th percentiles of the
 * resampled means. Deterministic for a given seed.
 */
export function pairedBootstrap(
  a: readonly number[],
  b: readonly number[],
  resamples = 1000,
  seed = 1,
): Interval {
  if (a.length !== b.length) throw new Error('paired scores differ in length')
  const diff = a.map((x, i) => x - b[i]!)
  const n = diff.length
  const mean = n ? diff.reduce((s, d) => s + d, 0) / n : 0
  if (n === 0) return { mean, low: 0, high: 0 }
  const random = seededRandom(seed)
  const means: number[] = []
  for (let r = 0; r < resamples; r++) {
    let sum = 0
    for (let i = 0; i < n; i++) sum += diff[Math.floor(random() * n)]!
    means.push(sum / n)
  }
  means.sort((x, y) => x - y)
  const at = (q: number) => means[Math.min(resamples - 1, Math.max(0, Math.round(q * (resamples - 1))))]!
  return { mean, low: at(0.025), high: at(0.975) }
}
