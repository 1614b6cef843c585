import SYNONYMS from '../../../../assets/engine/synonyms.txt' with { type: 'text' }
import { normWord, stem } from './text'

// Near-synonyms from WordNet (scripts/build-synonyms.ts): questions paraphrase the text's verbs and
// nouns ("killed" for "died", "started" for "began"). Stemmed on first use.
let related: Map<string, string[]> | null = null

/** Builds the stemmed synonym table now (about 150 ms) instead of on the first question. */
export function prepareSynonyms(): void {
  relatedStems('')
}

/** The stems related to a stem by the synonym table. */
function relatedStems(term: string): string[] {
  if (!related) {
    const sets = new Map<string, Set<string>>()
    const link = (a: string, b: string) => {
      sets.set(a, (sets.get(a) ?? new Set<string>()).add(b))
    }
    for (const line of SYNONYMS.split('\n')) {
      if (line === '' || line.startsWith('#')) continue
      const [word, ...others] = line.split(' ')
      const a = stem(normWord(word!))
      for (const other of others) {
        const b = stem(normWord(other))
        if (b !== a) link(a, b)
      }
    }
    related = new Map([...sets].map(([t, s]) => [t, [...s]]))
  }
  return related.get(term) ?? []
}

/**
 * Word-family variants of a question's terms: index terms one of which is a prefix of the other
 * ("invent" and "inventor", "govern" and "governor"), which Porter stemming leaves apart. A sentence
 * holding only a variant is weak evidence (it counts like a learned expansion), never a full match.
 */

/** Shortest term (and shortest shared prefix) that has variants: shorter stems are too ambiguous. */
export const VARIANT_MIN = 4

/** The shorter forms of `term` worth looking up: its prefixes of at least VARIANT_MIN characters. */
export function variantPrefixes(term: string): string[] {
  const out: string[] = []
  if (/\d/.test(term)) return out
  for (let n = VARIANT_MIN; n < term.length; n++) out.push(term.slice(0, n))
  return out
}

/**
 * A question's variant terms: for each term of at least VARIANT_MIN characters (not a number), the
 * known terms that extend it and the known terms it extends, minus the question's own terms.
 * `extending` lists known terms starting with a term; `known` tells which strings are terms.
 */
export function variantsOf(
  terms: string[],
  extending: (term: string) => Iterable<string>,
  known: (candidates: string[]) => boolean[],
): string[][] {
  return terms.map((t) => {
    const related = relatedStems(t)
    const short = t.length < VARIANT_MIN || /\d/.test(t)
    const candidates = short ? related : [...variantPrefixes(t), ...related]
    const found = candidates.length ? known(candidates) : []
    const out = candidates.filter((_, i) => found[i])
    if (!short) for (const v of extending(t)) out.push(v)
    return out.filter((v) => !terms.includes(v))
  })
}
