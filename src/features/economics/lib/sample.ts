import type { Random } from '../../../platform/crypto/random'

/** Words of a sampled query: enough to name a topic, short like a typed question. */
const QUERY_WORDS = 8

/**
 * Draws up to `n` queries from a base's own text, for a scale test the user gave no queries to:
 * sentences of at least six words, cut to their first few words. Drawn with the injected random
 * source, so a seeded test always gets the same queries.
 */
export function sampleQueries(texts: readonly string[], n: number, random: Random): string[] {
  const candidates: string[] = []
  for (const text of texts) {
    for (const sentence of text.split(/(?<=[.!?])\s+|\n+/)) {
      const words = sentence
        .replace(/[^\p{L}\p{N}\s'-]+/gu, ' ')
        .split(/\s+/)
        .filter(Boolean)
      if (words.length >= 6) candidates.push(words.slice(0, QUERY_WORDS).join(' '))
    }
  }
  const unique = [...new Set(candidates)]
  const out: string[] = []
  while (out.length < n && unique.length > 0) {
    const i = pick(random, unique.length)
    out.push(unique[i]!)
    unique.splice(i, 1)
  }
  return out
}

/** A uniform index below `n` from the random source. */
function pick(random: Random, n: number): number {
  const b = random.bytes(4)
  const x = ((b[0]! << 24) | (b[1]! << 16) | (b[2]! << 8) | b[3]!) >>> 0
  return x % n
}
