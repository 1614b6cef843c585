/**
 * The process-wide term dictionary: every index term gets one global number and one string, shared
 * by all warm cartridges. Cartridges then hold numbers (4 bytes a term) instead of a string map each,
 * which was most of their memory. Terms are never removed: the set of distinct stems grows with the
 * vocabulary of all documents, not with their size.
 */
const ids = new Map<string, number>()
const strings: string[] = []

/** The global number of a term, assigned on first sight. */
export function internTerm(term: string): number {
  let id = ids.get(term)
  if (id === undefined) {
    id = strings.push(term) - 1
    ids.set(term, id)
  }
  return id
}

/** The global number of a known term, or undefined (no cartridge can contain it). */
export function lookupTerm(term: string): number | undefined {
  return ids.get(term)
}

/** The shared string of a global term number. */
export function termString(id: number): string {
  return strings[id]!
}

let sorted: string[] = []
/** Known terms that start with `prefix` (longer ones only), from the process-wide dictionary. */
export function termsStartingWith(prefix: string): string[] {
  // Re-sorted only when the dictionary has grown since (onboarding, not questions, adds terms).
  if (sorted.length !== strings.length) sorted = [...strings].sort()
  let lo = 0
  let hi = sorted.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (sorted[mid]! < prefix) lo = mid + 1
    else hi = mid
  }
  const out: string[] = []
  for (let i = lo; i < sorted.length && sorted[i]!.startsWith(prefix); i++)
    if (sorted[i] !== prefix) out.push(sorted[i]!)
  return out
}
