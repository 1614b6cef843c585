import type { PassageRow } from './engine.rows'
import { decodePassageWords, scanPassageWords } from './rank/index'

type PassageWords = ReturnType<typeof scanPassageWords>

/** A pooled passage as rag ranks it: its row, its sentence spans and its words, decoded once. */
export interface DecodedPassage {
  row: PassageRow
  spans: Uint32Array
  words: PassageWords
}

/** Bytes held besides the passage's text and arrays (the objects and the map's entry), roughly. */
const OVERHEAD = 400
/** Bytes a kept vector holds besides its floats. */
const VECTOR_OVERHEAD = 80

/** Decodes a passage read from the database (passages indexed before their words were stored are read from their text). */
export function decodePassage(row: PassageRow): DecodedPassage {
  const spans = new Uint32Array(row.sents.slice().buffer)
  return { row, spans, words: decodePassageWords(row.words) ?? scanPassageWords(row.text, spans) }
}

function sizeOf(p: DecodedPassage): number {
  const { row, spans, words } = p
  const ids = row.sectionId.length + row.documentId.length + row.title.length + row.filename.length
  const arrays =
    words.off.byteLength + words.terms.byteLength + words.senses.byteLength + words.kinds.byteLength
  return OVERHEAD + 2 * (row.text.length + ids) + spans.byteLength + (row.words?.byteLength ?? 0) + arrays
}

interface Entry {
  key: number
  value: DecodedPassage
  size: number
  /** Its vector from `model` once asked (PassageCache.vector): only one that exists is kept. */
  vec?: Float32Array
  model?: string
}

/**
 * Rag's decoded passages by id, kept like the term counts: per base key, only for the generation of
 * the base they were read at (every change to a base's index bumps it, in any process), and least
 * recently used first out past `maxBytes`. A question's pool of 40 is then read from the database
 * and decoded only the first time its passages are pooled.
 */
export class PassageCache {
  private readonly entries = new Map<number, Entry>()
  /** The generation each base's kept passages were read at. */
  private readonly generations = new Map<number, number>()
  private total = 0

  constructor(readonly maxBytes: number) {}

  /** Bytes held now. */
  get bytes(): number {
    return this.total
  }

  /** Drops a base's passages unless they are of this generation. */
  open(key: number, generation: number): void {
    if (this.generations.get(key) === generation) return
    this.forget(key)
    this.generations.set(key, generation)
  }

  /** Drops a base's passages (its index changed). */
  forget(key: number): void {
    if (!this.generations.delete(key)) return
    for (const [id, e] of this.entries) {
      if (e.key !== key) continue
      this.entries.delete(id)
      this.total -= e.size
    }
  }

  /** Drops every base's passages. */
  clear(): void {
    this.entries.clear()
    this.generations.clear()
    this.total = 0
  }

  /**
   * The passages of ids in a base opened at its current generation, in the order of `ids` (ids the
   * base no longer has are left out), reading the missing ones with `read` (any order).
   */
  passages(key: number, ids: readonly number[], read: (ids: number[]) => PassageRow[]): DecodedPassage[] {
    const found = new Map<number, DecodedPassage>()
    const missing: number[] = []
    for (const id of ids) {
      const e = this.entries.get(id)
      if (e === undefined || e.key !== key) {
        missing.push(id)
        continue
      }
      // Most recently used last.
      this.entries.delete(id)
      this.entries.set(id, e)
      found.set(id, e.value)
    }
    if (missing.length > 0) {
      const open = this.generations.has(key)
      for (const row of read(missing)) {
        const value = decodePassage(row)
        found.set(row.id, value)
        if (open) this.keep(key, row.id, value)
      }
    }
    const out: DecodedPassage[] = []
    for (const id of ids) {
      const p = found.get(id)
      if (p) out.push(p)
    }
    return out
  }

  /**
   * The vector from `model` of a pooled passage (its id, and the text, section and ordinal it was
   * ranked with), read with `read` the first time and then kept with the passage, its bytes
   * counted, for as long as the passage is kept: for the base's generation it was pooled at, and
   * only while the kept row is the one ranked. A passage without a vector is read again each time
   * (its vector may be stored later, by an embed job, without a new generation).
   */
  vector(
    id: number,
    ranked: { text: string; sectionId: string; ordinal: number },
    model: string,
    read: () => Float32Array | null,
  ): Float32Array | null {
    const e = this.entries.get(id)
    const row = e?.value.row
    const same =
      row !== undefined &&
      row.text === ranked.text &&
      row.sectionId === ranked.sectionId &&
      row.ordinal === ranked.ordinal
    if (same && e!.vec !== undefined && e!.model === model) return e!.vec
    const vec = read()
    if (vec === null || !same) return vec
    const size = vec.byteLength + VECTOR_OVERHEAD - (e!.vec ? e!.vec.byteLength + VECTOR_OVERHEAD : 0)
    e!.vec = vec
    e!.model = model
    e!.size += size
    this.total += size
    this.evict()
    return vec
  }

  private keep(key: number, id: number, value: DecodedPassage): void {
    const size = sizeOf(value)
    if (size > this.maxBytes) return
    const old = this.entries.get(id)
    if (old) this.total -= old.size
    this.entries.delete(id)
    this.entries.set(id, { key, value, size })
    this.total += size
    this.evict()
  }

  /** Drops the least recently used passages while more than `maxBytes` are held. */
  private evict(): void {
    for (const [k, e] of this.entries) {
      if (this.total <= this.maxBytes) break
      this.entries.delete(k)
      this.total -= e.size
    }
  }
}
