// The Universal Sentence Encoder lite's tokenizer (SentencePiece pieces chosen by the highest total
// score), as TensorFlow.js's model package does it (tfjs-models/universal-sentence-encoder, Apache-2.0,
// repackaged by @energetic-ai/embeddings): the same pieces for every text, ties and unknown
// characters included, so use-lite.ts's vectors are the package's. A Map of pieces instead of the
// package's trie of objects (8,000 pieces: about 7 MB of objects there).

/** The vocabulary as the model's vocab.json has it: [piece, score], in id order. */
export type Vocabulary = [string, number][]

/** The first ids name control symbols, never matched in a text. */
const RESERVED = 6
/** What a space becomes (SentencePiece's word-start mark), also put before the text. */
const SEPARATOR = '\u2581'

/** A hash of a string's code points, extended one at a time (`reach`). */
const extend = (h: number, code: number) => (Math.imul(h, 31) + code) | 0

export class PieceTokenizer {
  private readonly ids = new Map<string, number>()
  /** The longest piece, in code points. */
  private readonly longest: number
  /**
   * The hashes of every piece's every start (its first code point, its first two, ..., itself): a
   * string whose hash is not here starts no piece, so no longer one is looked up (a position tried
   * every length up to the longest piece's, 16, most of them in vain). A hash shared by chance
   * only looks further.
   */
  private readonly reach = new Set<number>()

  constructor(private readonly vocabulary: Vocabulary) {
    let longest = 1
    for (let i = RESERVED; i < vocabulary.length; i++) {
      const piece = vocabulary[i]![0]
      // A piece listed twice keeps its last id and score, as the package's trie does.
      this.ids.set(piece, i)
      let h = 0
      for (const c of piece) {
        h = extend(h, c.codePointAt(0)!)
        this.reach.add(h)
      }
      longest = Math.max(longest, [...piece].length)
    }
    this.longest = longest
  }

  /** The text's piece ids (0: a character no piece covers; unknowns in a row count once). */
  encode(text: string): number[] {
    const normalized = text.normalize('NFKC')
    const symbols = normalized.length > 0 ? [...(SEPARATOR + normalized.replace(/ /g, SEPARATOR))] : []
    const n = symbols.length
    // starts[end]: the pieces (id and length in code points) ending at `end`, by start ascending.
    const starts: { start: number; id: number; length: number; score: number }[][] = Array.from(
      { length: n + 1 },
      () => [],
    )
    const codes = symbols.map((c) => c.codePointAt(0)!)
    for (let i = 0; i < n; i++) {
      let piece = ''
      let found = false
      let h = 0
      for (let len = 1; len <= this.longest && i + len <= n; len++) {
        h = extend(h, codes[i + len - 1]!)
        if (!this.reach.has(h)) break
        piece += symbols[i + len - 1]
        const id = this.ids.get(piece)
        if (id === undefined) continue
        found = true
        starts[i + len]!.push({ start: i, id, length: len, score: this.vocabulary[id]![1] })
      }
      // No piece starts here: the character alone, unknown (id 0), scored 0.
      if (!found) starts[i + 1]!.push({ start: i, id: 0, length: 1, score: 0 })
    }
    // Best total score of the text up to each position (0: none yet, as in the package).
    const best = new Float64Array(n + 1)
    const words = new Int32Array(n + 1)
    for (let end = 0; end <= n; end++) {
      // The package walks an object keyed by start, so ascending starts; the last of equal scores wins.
      const list = starts[end]!.sort((a, b) => a.start - b.start)
      for (const w of list) {
        const score = w.score + best[end - w.length]!
        if (best[end] === 0 || score >= best[end]!) {
          best[end] = score
          words[end] = w.id
        }
      }
    }
    const ids: number[] = []
    for (let at = n; at > 0; at -= this.vocabulary[words[at]!]![0].length) ids.push(words[at]!)
    ids.reverse()
    const merged: number[] = []
    for (let i = 0; i < ids.length; i++)
      if (!(ids[i] === 0 && i > 0 && ids[i - 1] === 0)) merged.push(ids[i]!)
    return merged
  }
}
