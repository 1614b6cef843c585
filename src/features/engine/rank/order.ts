/**
 * Comparators for sorts by a number, as `y - x` (descending) and `x - y` (ascending) give, but as
 * -1, 0 or 1. JavaScriptCore inlines `Array.prototype.sort` and speculates that its comparator
 * answers an int32: a difference of two scores mostly is not, so each such sort left the optimized
 * code (an OSR exit, thousands over a few hundred questions) and its function was compiled again
 * and again, on the question's thread's time and the JIT thread's. The sign is the difference's
 * for every pair, NaN and the infinities included (where the difference is NaN, both give 0), so
 * a sort orders exactly as before.
 */

/** A descending sort's comparison of x and y: the sign of `y - x` (0 where that is NaN). */
export function descending(x: number, y: number): number {
  return y > x ? 1 : y < x ? -1 : 0
}

/** An ascending sort's comparison of x and y: the sign of `x - y` (0 where that is NaN). */
export function ascending(x: number, y: number): number {
  return x > y ? 1 : x < y ? -1 : 0
}

/** Items best first by their score (one comparator for every sort of a question, not a closure each). */
export function byScore(a: { score: number }, b: { score: number }): number {
  return descending(a.score, b.score)
}
