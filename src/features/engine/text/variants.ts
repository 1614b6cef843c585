import SYNONYMS from '../../../../assets/engine/synonyms.txt' with { type: 'text' }
import { readPackedSynonyms, type SynonymTable } from './synonym-pack'
import { normWord, stemOnce } from './text'
import { FNV_OFFSET, FNV_PRIME } from './wordscan'

// Near-synonyms from WordNet (scripts/build-synonyms.ts): questions paraphrase the text's verbs and
// nouns ("killed" for "died", "started" for "began"). Stemmed on first use and packed: the stems in
// one string, found through an open-addressing table of their FNV-1a hashes, and each stem's related
// stems as a run of stem numbers (CSR, synonym-pack.ts's SynonymTable). A Map of Sets of strings
// held about 10 MB of heap.
export type { SynonymTable }

let related: SynonymTable | null = null

/** FNV-1a over a string's code units. */
function hashOf(s: string): number {
  let h = FNV_OFFSET
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), FNV_PRIME)
  return h
}

/** Reads the stemmed synonym table now (a few milliseconds) instead of on the first question. */
export function prepareSynonyms(): void {
  relatedStems('')
}

/** The stemmed synonym table (read now if need be: synonym-pack.ts), as a compile thread hands it to the event loop. */
export function synonymTable(): SynonymTable {
  related ??= readPackedSynonyms()
  return related
}

/** Takes a table another thread built (synonymTable's), unless this one has its own already. */
export function adoptSynonyms(table: SynonymTable): void {
  related ??= table
}

/**
 * Reads synonyms.txt into the packed table: each line's word linked to every other word's stem. The
 * build writes it to a file (scripts/build-synonym-table.ts) that processes read instead.
 */
export function buildSynonyms(): SynonymTable {
  const ids = new Map<string, number>()
  const names: string[] = []
  const id = (word: string) => {
    const s = stemOnce(normWord(word))
    let i = ids.get(s)
    if (i === undefined) {
      i = names.length
      ids.set(s, i)
      names.push(s)
    }
    return i
  }
  let from = new Int32Array(1 << 16)
  let to = new Int32Array(1 << 16)
  let n = 0
  for (let at = 0, lines = 0; at < SYNONYMS.length; ) {
    // Stemming 130,000 words leaves strings behind faster than the collector comes by: collected
    // every few thousand lines, the build's resident peak stays small.
    if (++lines % 4096 === 0) Bun.gc(false)
    let end = SYNONYMS.indexOf('\n', at)
    if (end < 0) end = SYNONYMS.length
    if (end > at && SYNONYMS.charCodeAt(at) !== 35) {
      const line = SYNONYMS.slice(at, end).split(' ')
      const a = id(line[0]!)
      for (let j = 1; j < line.length; j++) {
        const b = id(line[j]!)
        if (b === a) continue
        if (n === from.length) {
          const f = new Int32Array(n * 2)
          f.set(from)
          from = f
          const t = new Int32Array(n * 2)
          t.set(to)
          to = t
        }
        from[n] = a
        to[n++] = b
      }
    }
    at = end + 1
  }
  // Group the links by stem in file order (a stable counting sort), then keep each link's first.
  const count = names.length
  const off = new Uint32Array(count + 1)
  for (let i = 0; i < n; i++) off[from[i]! + 1]!++
  for (let i = 0; i < count; i++) off[i + 1]! += off[i]!
  const fill = off.slice(0, count)
  const grouped = new Int32Array(n)
  for (let i = 0; i < n; i++) grouped[fill[from[i]!]!++] = to[i]!
  const list = new Int32Array(n)
  let kept = 0
  for (let i = 0; i < count; i++) {
    const start = kept
    for (let j = off[i]!; j < off[i + 1]!; j++) {
      const b = grouped[j]!
      let seen = false
      for (let k = start; k < kept && !seen; k++) seen = list[k] === b
      if (!seen) list[kept++] = b
    }
    off[i] = start
  }
  off[count] = kept
  const starts = new Uint32Array(count + 1)
  for (let i = 0; i < count; i++) starts[i + 1] = starts[i]! + names[i]!.length
  let size = 1
  while (size < count * 2) size *= 2
  const slots = new Int32Array(size)
  for (let i = 0; i < count; i++) {
    let slot = hashOf(names[i]!) & (size - 1)
    while (slots[slot] !== 0) slot = (slot + 1) & (size - 1)
    slots[slot] = i + 1
  }
  return { names: names.join(''), starts, slots, mask: size - 1, off, list: list.slice(0, kept) }
}

/** The number of a stem in the table, -1 when the file has no word with that stem. */
function stemIndex(r: SynonymTable, term: string): number {
  for (let at = hashOf(term) & r.mask; r.slots[at] !== 0; at = (at + 1) & r.mask) {
    const i = r.slots[at]! - 1
    const start = r.starts[i]!
    if (r.starts[i + 1]! - start === term.length && r.names.startsWith(term, start)) return i
  }
  return -1
}

/** The stems related to a stem by the synonym table. */
function relatedStems(term: string): string[] {
  const r = synonymTable()
  const i = stemIndex(r, term)
  const out: string[] = []
  if (i < 0) return out
  for (let j = r.off[i]!; j < r.off[i + 1]!; j++) {
    const b = r.list[j]!
    out.push(r.names.slice(r.starts[b]!, r.starts[b + 1]!))
  }
  return out
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
