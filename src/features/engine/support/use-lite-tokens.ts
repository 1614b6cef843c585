// The Universal Sentence Encoder lite's tokenizer (SentencePiece pieces chosen by the highest total
// score), as TensorFlow.js's model package does it (tfjs-models/universal-sentence-encoder, Apache-2.0,
// repackaged by @energetic-ai/embeddings): the same pieces for every text, ties and unknown
// characters included, so use-lite.ts's vectors are the package's. The pieces are held packed (their
// code points, scores and lengths in typed arrays, found through open-addressed tables of hashes),
// not as the package's trie of objects (8,000 pieces: about 7 MB of objects there), nor as a Map of
// strings and a Set of numbers, whose making took 12 MB of the thread's memory as it loaded (issue 38).

/** The vocabulary as the model's vocab.json has it: [piece, score], in id order. */
export type Vocabulary = [string, number][]

/** The first ids name control symbols, never matched in a text. */
const RESERVED = 6
/** What a space becomes (SentencePiece's word-start mark), also put before the text. */
const SEPARATOR = '\u2581'

/** A hash of a string's code points, extended one at a time (`reach`). */
const extend = (h: number, code: number) => (Math.imul(h, 31) + code) | 0

/** An open-addressed table's size for `count` keys (a power of two, at most half full) and its shift. */
function tableSize(count: number): { size: number; shift: number } {
  let bits = 4
  while (1 << bits < count * 2) bits++
  return { size: 1 << bits, shift: 32 - bits }
}

/** A hash's first slot in a table (Fibonacci hashing: the low bits of `extend`'s hashes are poor). */
const slotOf = (h: number, shift: number) => Math.imul(h, 0x9e3779b1) >>> shift

export class PieceTokenizer {
  /** Each piece's score, and its length in UTF-16 units (as the package steps back over a piece). */
  private readonly scores: Float64Array
  private readonly units: Uint16Array
  /** Every piece's code points laid end to end: piece i's are codes[from[i]] to codes[from[i + 1]]. */
  private readonly codes: Int32Array
  private readonly from: Int32Array
  /** Piece ids + 1 (0: empty) by their whole hash, and that hash; a piece listed twice keeps its last id. */
  private readonly slots: Int32Array
  private readonly slotHash: Int32Array
  private readonly slotShift: number
  /**
   * The hashes of every piece's every start (its first code point, its first two, ..., itself): a
   * string whose hash is not here starts no piece, so no longer one is looked up (a position tried
   * every length up to the longest piece's, 16, most of them in vain). A hash shared by chance
   * only looks further. Open-addressed: `reachUsed` marks the slots taken.
   */
  private readonly reach: Int32Array
  private readonly reachUsed: Uint8Array
  private readonly reachShift: number
  /** The longest piece, in code points. */
  private readonly longest: number

  /** The vocabulary is read here and not kept (the parsed JSON can be collected once this is made). */
  constructor(vocabulary: Vocabulary) {
    const count = vocabulary.length
    this.scores = new Float64Array(count)
    this.units = new Uint16Array(count)
    this.from = new Int32Array(count + 1)
    let total = 0
    for (let i = 0; i < count; i++) {
      const [piece, score] = vocabulary[i]!
      this.scores[i] = score
      this.units[i] = piece.length
      this.from[i] = total
      if (i >= RESERVED) total += codePoints(piece, null, 0)
    }
    this.from[count] = total
    this.codes = new Int32Array(total)
    for (let i = RESERVED; i < count; i++) codePoints(vocabulary[i]![0], this.codes, this.from[i]!)
    const ids = tableSize(count)
    this.slots = new Int32Array(ids.size)
    this.slotHash = new Int32Array(ids.size)
    this.slotShift = ids.shift
    const reach = tableSize(total)
    this.reach = new Int32Array(reach.size)
    this.reachUsed = new Uint8Array(reach.size)
    this.reachShift = reach.shift
    let longest = 1
    for (let i = RESERVED; i < count; i++) {
      const at = this.from[i]!
      const length = this.from[i + 1]! - at
      let h = 0
      for (let k = 0; k < length; k++) {
        h = extend(h, this.codes[at + k]!)
        this.addReach(h)
      }
      this.addPiece(h, i)
      longest = Math.max(longest, length)
    }
    this.longest = longest
  }

  private addReach(h: number): void {
    const mask = this.reach.length - 1
    let s = slotOf(h, this.reachShift)
    while (this.reachUsed[s] && this.reach[s] !== h) s = (s + 1) & mask
    this.reach[s] = h
    this.reachUsed[s] = 1
  }

  private hasReach(h: number): boolean {
    const mask = this.reach.length - 1
    for (let s = slotOf(h, this.reachShift); this.reachUsed[s]; s = (s + 1) & mask)
      if (this.reach[s] === h) return true
    return false
  }

  /** Piece `id` (its hash `h`) into the table, over an earlier id of the same piece. */
  private addPiece(h: number, id: number): void {
    const mask = this.slots.length - 1
    const at = this.from[id]!
    const length = this.from[id + 1]! - at
    let s = slotOf(h, this.slotShift)
    while (this.slots[s] && !(this.slotHash[s] === h && this.is(this.slots[s]! - 1, this.codes, at, length)))
      s = (s + 1) & mask
    this.slots[s] = id + 1
    this.slotHash[s] = h
  }

  /** The id of the piece whose code points are codes[at] to codes[at + length] (hash `h`), or -1. */
  private find(h: number, codes: Int32Array, at: number, length: number): number {
    const mask = this.slots.length - 1
    for (let s = slotOf(h, this.slotShift); this.slots[s]; s = (s + 1) & mask) {
      const id = this.slots[s]! - 1
      if (this.slotHash[s] === h && this.is(id, codes, at, length)) return id
    }
    return -1
  }

  /** Whether piece `id` is the code points codes[at] to codes[at + length]. */
  private is(id: number, codes: Int32Array, at: number, length: number): boolean {
    const start = this.from[id]!
    if (this.from[id + 1]! - start !== length) return false
    for (let k = 0; k < length; k++) if (this.codes[start + k] !== codes[at + k]) return false
    return true
  }

  /** The text's piece ids (0: a character no piece covers; unknowns in a row count once). */
  encode(text: string): number[] {
    const normalized = text.normalize('NFKC')
    const spaced = normalized.length > 0 ? SEPARATOR + normalized.replace(/ /g, SEPARATOR) : ''
    const codes = new Int32Array(spaced.length)
    const n = codePoints(spaced, codes, 0)
    // Best total score of the text up to each position (0: none yet, as in the package), and the
    // piece ending there. The package walks the pieces ending at a position by ascending start, the
    // last of equal scores winning; relaxing each piece's end from its start, starts ascending, makes
    // the same comparisons in the same order (a start's best is final by then: every piece ending
    // there starts before it), without a list of pieces a position.
    const best = new Float64Array(n + 1)
    const words = new Int32Array(n + 1)
    const relax = (start: number, end: number, id: number, score: number) => {
      const total = score + best[start]!
      if (best[end] === 0 || total >= best[end]!) {
        best[end] = total
        words[end] = id
      }
    }
    for (let i = 0; i < n; i++) {
      let found = false
      let h = 0
      for (let len = 1; len <= this.longest && i + len <= n; len++) {
        h = extend(h, codes[i + len - 1]!)
        if (!this.hasReach(h)) break
        const id = this.find(h, codes, i, len)
        if (id < 0) continue
        found = true
        relax(i, i + len, id, this.scores[id]!)
      }
      // No piece starts here: the character alone, unknown (id 0), scored 0.
      if (!found) relax(i, i + 1, 0, 0)
    }
    const ids: number[] = []
    for (let at = n; at > 0; at -= this.units[words[at]!]!) ids.push(words[at]!)
    ids.reverse()
    const merged: number[] = []
    for (let i = 0; i < ids.length; i++)
      if (!(ids[i] === 0 && i > 0 && ids[i - 1] === 0)) merged.push(ids[i]!)
    return merged
  }
}

/**
 * The string's code points (a lone surrogate as itself, as a string's iterator gives it) written
 * into `into` from `at` (or only counted, without it): how many there are.
 */
function codePoints(text: string, into: Int32Array | null, at: number): number {
  let n = 0
  for (let k = 0; k < text.length; n++) {
    const c = text.codePointAt(k)!
    if (into) into[at + n] = c
    k += c > 0xffff ? 2 : 1
  }
  return n
}
