import type { QueryPlan } from './query'

/** Edit distance with adjacent transpositions (optimal string alignment), giving up above `max`. */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1
  const n = b.length
  let prev2 = new Array<number>(n + 1).fill(0)
  let prev = Array.from({ length: n + 1 }, (_, j) => j)
  let cur = new Array<number>(n + 1).fill(0)
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i
    let rowMin = i
    for (let j = 1; j <= n; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, prev2[j - 2]! + 1)
      cur[j] = v
      if (v < rowMin) rowMin = v
    }
    if (rowMin > max) return max + 1
    ;[prev2, prev, cur] = [prev, cur, prev2]
  }
  return prev[n]!
}

/** How far a misspelt term may be from a known one: none for short terms, more for long ones. */
export function allowedEdits(term: string): number {
  if (term.length < 4 || /\d/.test(term)) return 0
  return term.length < 7 ? 1 : 2
}

/**
 * The known term a question's unknown term most likely misspells: the closest within the allowed
 * edits, the more frequent on a tie. Candidates share the first letter (typos rarely hit it).
 */
export function respell(term: string, known: Iterable<{ term: string; doc: number }>): string | null {
  const max = allowedEdits(term)
  if (max === 0) return null
  let best: string | null = null
  let bestD = max + 1
  let bestDoc = 0
  for (const k of known) {
    if (k.term[0] !== term[0] || k.term === term) continue
    const d = editDistance(term, k.term, max)
    if (d < bestD || (d === bestD && d <= max && k.doc > bestDoc)) {
      best = k.term
      bestD = d
      bestDoc = k.doc
    }
  }
  return bestD <= max ? best : null
}

/**
 * Replaces question terms the base has never seen by the closest known spelling (per the index's
 * vocabulary), so "Ghengis" still finds "Genghis". Returns the plan to use and its passage counts.
 */
export function respellPlan(
  plan: QueryPlan,
  df: number[],
  known: (prefix: string) => Iterable<{ term: string; doc: number }>,
) {
  const terms = [...plan.terms]
  const counts = [...df]
  let respelled = false
  terms.forEach((t, i) => {
    if (counts[i]! > 0 || allowedEdits(t) === 0) return
    const candidates = [...known(t.slice(0, 1))]
    const fix = respell(t, candidates)
    if (fix && !terms.includes(fix)) {
      terms[i] = fix
      counts[i] = candidates.find((c) => c.term === fix)!.doc
      respelled = true
    }
  })
  // Most questions are spelled as their bases are: the plan itself, not a copy of another shape (a
  // spread object), which made the reads of its terms in rankPassage leave the optimized code.
  return { plan: respelled ? { ...plan, terms } : plan, df: counts }
}
