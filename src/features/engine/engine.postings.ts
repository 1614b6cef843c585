import type { Statement } from 'bun:sqlite'
import { TopHeap } from './common/index'
import {
  eachInt,
  hexByte,
  readWhole,
  varints,
  WHOLE_BASES,
  WHOLE_ROWS,
  WHOLE_TOKENS,
  type WholeLists,
  wholeDocs,
} from './engine.postings-read'
import type { TopkHit } from './engine.topk'

// FTS5's bm25() (fts5_aux.c) computed here from the index's own posting lists, kept in memory. At
// 100x squad-dev a question's terms hold tens of thousands of passages, and FTS5 calls bm25() on
// each (reading its size and positions) for every question: most of rag's time. A term's posting
// list is read once from fts5vocab, with the term's share of each passage's score worked out from
// the passages' lengths, and kept for the base's current generation; a question then costs one
// addition a posting. The shares are FTS5's expression and are summed in the query's order, as
// FTS5 sums them, so the scores are the same doubles and the top passages the same, ties broken by
// rowid as FTS5 lists them.

// FTS5's bm25() constants: k1 and b, and the least idf it gives a term.
const K1 = 1.2
const B = 0.75
const IDF_MIN = 1e-6
// Bytes of posting lists kept over all bases; the least recently used go first.
const MAX_BYTES = 32 << 20
// A base's search at a generation from which its lengths are read: the earlier ones take FTS5's own
// query, as reading every length (tens of ms at 100x) would cost more than it saves while a base is
// being written, when a generation sees few searches.
const READ_FROM = 4
// A small base's search at a generation from which its every list is read at once (engine.postings-read.ts).
const WHOLE_FROM = 8
// Bases whose lengths are kept (16 bytes a passage); past it, the least recently searched goes.
const MAX_BASES = 16

/** The statements over one FTS5 table that in-memory BM25 reads (FtsIndex prepares them). */
export interface PostingStatements {
  /** The table's averages record: its row count and token count, as varints. */
  averages: Statement
  /** Every row's id (comma-separated) and token count (hex varints, concatenated), in rowid order. */
  sizes: Statement
  /** The rowids of a term's instances, comma-separated, in rowid order (one per occurrence). */
  instances: Statement
  /** Every term's instances as `instances` lists them, after the term and a space, joined by spaces. */
  lists: Statement
}

/**
 * A term's passages (their places in the base's rowid list, in order) and the term's share of each
 * one's bm25(), worked out once: a share depends only on the term's count in the passage and the
 * passage's length (given the generation's statistics), so the few distinct shares are listed once
 * and each posting holds an index into them.
 */
interface Posting {
  at: Int32Array
  which: Uint16Array | Uint32Array
  shares: Float64Array
}

/** What BM25 needs of one generation of a base's table besides the postings. */
interface BaseStats {
  generation: number
  /** Searches seen at this generation. */
  searches: number
  rows: number
  avgdl: number
  /** The table's rowids in order; lengths[i] is row ids[i]'s token count. */
  ids: Int32Array | null
  lengths: Uint32Array | null
  /** Score accumulators by place in `ids`, zero between searches. */
  acc: Float64Array | null
  /** A small base's every list, once read (a base searched WHOLE_FROM times at this generation). */
  whole: WholeLists | null
}

/**
 * Posting lists and passage lengths of bases' FTS5 tables, per base key and generation, and the
 * BM25 top passages of a query computed from them. Bounded over all bases by bytes of postings.
 */
export class Postings {
  /** By base key, least recently searched first. */
  private readonly bases = new Map<number, BaseStats>()
  /** Posting lists by `key:token`, least recently used first. */
  private readonly lists = new Map<string, Posting>()
  private bytes = 0

  private readonly maxBytes: number
  private readonly readFrom: number
  private readonly wholeFrom: number

  constructor(opts: { maxBytes?: number; readFrom?: number; wholeFrom?: number } = {}) {
    this.maxBytes = opts.maxBytes ?? MAX_BYTES
    this.readFrom = opts.readFrom ?? READ_FROM
    this.wholeFrom = opts.wholeFrom ?? WHOLE_FROM
  }

  /** Keeps what is known of a base only if it is of this generation. */
  open(key: number, generation: number): void {
    const b = this.bases.get(key)
    if (b?.generation === generation) return
    this.forget(key)
    const stats = {
      generation,
      searches: 0,
      rows: 0,
      avgdl: 0,
      ids: null,
      lengths: null,
      acc: null,
      whole: null,
    }
    this.bases.set(key, stats)
  }

  /** Drops a base's postings and lengths (its index changed). */
  forget(key: number): void {
    if (!this.bases.delete(key)) return
    const head = `${key}:`
    for (const [k, p] of this.lists)
      if (k.startsWith(head)) {
        this.lists.delete(k)
        this.bytes -= bytesOf(p)
      }
  }

  /**
   * The `limit` best passages of a base for an OR-query of FTS5 tokens by bm25(), in FTS5's order
   * (lower rank first, then rowid); null when not worth it yet (a base's first searches at a
   * generation) or for a token FTS5 would fold to another form.
   */
  top(key: number, index: PostingStatements, tokens: string[], limit: number): TopkHit[] | null {
    const base = this.bases.get(key)
    if (!base || ++base.searches < this.readFrom) return null
    if (tokens.some((t) => t !== t.toLowerCase())) return null
    this.bases.delete(key)
    this.bases.set(key, base)
    if (!base.ids) {
      const read = [...this.bases].filter(([, b]) => b.ids)
      if (read.length >= MAX_BASES) this.forget(read[0]![0])
      this.readLengths(base, index)
    }
    if (
      base.searches === this.wholeFrom &&
      base.ids!.length <= WHOLE_ROWS &&
      !(base.rows * base.avgdl > WHOLE_TOKENS) // (NaN for a table with no rows: read, as it holds none)
    ) {
      const held = [...this.bases.values()].filter((b) => b.whole)
      if (held.length >= WHOLE_BASES) held[0]!.whole = null
      base.whole = readWhole(index.lists)
    }
    const lists = tokens.map((t) => this.posting(key, base, t, index))
    return bestOf(base, lists, limit)
  }

  private readLengths(base: BaseStats, index: PostingStatements): void {
    const avg = index.averages.values()[0]?.[0] as Uint8Array | undefined
    const sizes = index.sizes.get() as { n: number; ids: string | null; sz: string | null }
    const ids = new Int32Array(sizes.n)
    let i = 0
    eachInt(sizes.ids ?? '', (id) => {
      ids[i++] = id
    })
    const lengths = new Uint32Array(sizes.n)
    const hex = sizes.sz ?? ''
    varints((at) => hexByte(hex, at), lengths, sizes.n)
    // The averages record: the row count, then each column's token count (one column here).
    const head = [0, 0]
    if (avg) varints((at) => avg[at]!, head, 2)
    Object.assign(base, {
      rows: head[0]!,
      avgdl: head[1]! / head[0]!,
      ids,
      lengths,
      acc: new Float64Array(sizes.n),
    })
  }

  /** A token's posting list, read from fts5vocab on first use and kept while there is room. */
  private posting(key: number, base: BaseStats, token: string, index: PostingStatements): Posting {
    const id = `${key}:${token}`
    const kept = this.lists.get(id)
    if (kept) {
      this.lists.delete(id)
      this.lists.set(id, kept)
      return kept
    }
    // Each occurrence's rowid, so a passage's count is the length of its run.
    const docs: number[] = []
    const tf: number[] = []
    const each = (d: number) => {
      if (docs[docs.length - 1] === d) tf[tf.length - 1]!++
      else {
        docs.push(d)
        tf.push(1)
      }
    }
    if (base.whole) for (const d of wholeDocs(base.whole, token)) each(d)
    else eachInt((index.instances.get(token) as { docs: string | null }).docs ?? '', each)
    const { rows, avgdl, ids, lengths } = base
    let idf = Math.log((rows - docs.length + 0.5) / (docs.length + 0.5))
    if (idf <= 0) idf = IDF_MIN
    const at: number[] = []
    const which: number[] = []
    const shares: number[] = []
    const byKind = new Map<number, number>()
    for (const [i, d] of docs.entries()) {
      // A passage the lengths do not know was indexed since they were read (by another process):
      // it waits for the next generation.
      const p = placeOf(ids!, d)
      if (p < 0) continue
      const f = tf[i]!
      const length = lengths![p]!
      const kind = f * 2 ** 32 + length
      let w = byKind.get(kind)
      if (w === undefined) {
        w = shares.push(idf * ((f * (K1 + 1)) / (f + K1 * (1 - B + (B * length) / avgdl)))) - 1
        byKind.set(kind, w)
      }
      at.push(p)
      which.push(w)
    }
    const p = {
      at: Int32Array.from(at),
      which: shares.length <= 1 << 16 ? Uint16Array.from(which) : Uint32Array.from(which),
      shares: Float64Array.from(shares),
    }
    this.keep(id, p)
    return p
  }

  private keep(id: string, p: Posting): void {
    const size = bytesOf(p)
    if (size > this.maxBytes) return
    for (const [k, old] of this.lists) {
      if (this.bytes + size <= this.maxBytes) break
      this.lists.delete(k)
      this.bytes -= bytesOf(old)
    }
    this.lists.set(id, p)
    this.bytes += size
  }
}

/**
 * bm25() of every passage in the lists, its shares summed term by term in the query's order as
 * fts5_aux.c sums them (so the same doubles), and the `limit` best by a bounded heap.
 */
function bestOf(base: BaseStats, lists: Posting[], limit: number): TopkHit[] {
  const ids = base.ids!
  const acc = base.acc!
  const touched: number[] = []
  for (const { at, which, shares } of lists)
    for (let i = 0; i < at.length; i++) {
      const p = at[i]!
      if (acc[p] === 0) touched.push(p)
      acc[p]! += shares[which[i]!]!
    }
  const heap = new TopHeap(limit)
  for (const p of touched) {
    heap.offer(acc[p]!, ids[p]!)
    acc[p] = 0
  }
  return heap.sorted().map((h) => ({ id: h.id, rank: -1 * h.score }))
}

/** Bytes a posting list holds. */
function bytesOf(p: Posting): number {
  return p.at.byteLength + p.which.byteLength + p.shares.byteLength
}

/** The place of rowid `id` in the sorted `ids`, or -1. */
function placeOf(ids: Int32Array, id: number): number {
  let lo = 0
  let hi = ids.length - 1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    const v = ids[mid]!
    if (v === id) return mid
    if (v < id) lo = mid + 1
    else hi = mid - 1
  }
  return -1
}
