// SQuAD v1.1's answer metrics, as its official evaluation script defines them: bench/quality.ts scores
// the engine's answers with them, and scripts/fit-short.ts the short-answer picker's candidates.

/** SQuAD normalisation: lower case, no punctuation, no articles, single spaces. */
export function normalize(s: string): string {
  return s
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s]/gu, ' ')
    .replace(/\b(a|an|the)\b/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
}

/** Whether `text` contains one of the gold answers as whole normalised words. */
export function containsGold(text: string, golds: string[]): boolean {
  const hay = ` ${normalize(text)} `
  return golds.some((g) => normalize(g) !== '' && hay.includes(` ${normalize(g)} `))
}

/** SQuAD token F1 of a prediction against its best gold answer. */
export function tokenF1(pred: string, golds: string[]): number {
  const p = normalize(pred).split(' ').filter(Boolean)
  let best = 0
  for (const g of golds) {
    const gt = normalize(g).split(' ').filter(Boolean)
    const counts = new Map<string, number>()
    for (const t of gt) counts.set(t, (counts.get(t) ?? 0) + 1)
    let same = 0
    for (const t of p) {
      const c = counts.get(t) ?? 0
      if (c > 0) {
        same++
        counts.set(t, c - 1)
      }
    }
    if (same === 0) continue
    const precision = same / p.length
    const recall = same / gt.length
    best = Math.max(best, (2 * precision * recall) / (precision + recall))
  }
  return best
}

/** SQuAD exact match: the prediction equals one of the golds once normalised. */
export function exactMatch(pred: string, golds: string[]): boolean {
  return golds.some((g) => normalize(g) === normalize(pred))
}
