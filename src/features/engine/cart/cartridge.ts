import { defaultWeights, type ScoreWeights, wordKind } from '../rank/index'
import {
  type ChunkOptions,
  chunkSection,
  defaultChunkOptions,
  nextMark,
  scanWords,
  type WordInfo,
  wordSense,
} from '../text/index'
import { internTerm, lookupTerm, termString } from './terms'

/**
 * A section's cartridge: everything needed to answer questions from the section without the index.
 * Arrays are flat (CSR layout: `xOff[i]..xOff[i+1]` indexes `x` for item i) so the codec writes them
 * as they are and a warm copy costs little more than its bytes.
 */
export interface CartridgeData {
  text: string
  /** Sentence spans, [start0, end0, start1, end1, ...]. */
  sents: Uint32Array
  /** Passages as inclusive sentence ranges, [first0, last0, ...]. */
  passages: Uint32Array
  /** Local vocabulary: index terms (stems). */
  vocab: string[]
  /** Content-term ids of each sentence in order, and the word kinds (TokenKind bits) beside them. */
  sentTerms: Uint32Array
  sentKinds: Uint8Array
  sentOff: Uint32Array
  /**
   * The most frequent WordNet noun sense of each local term as the section first spells it (-1 for
   * none): the cart search tests it against the kind of thing a question asks for.
   */
  vocabSense: Int32Array
  /** Learned expansions: extra term ids per sentence that questions about it use (CSR by sentence). */
  expTerms: Uint32Array
  expOff: Uint32Array
  /** This section's fitted scorer weights. */
  weights: ScoreWeights
}

/** A cartridge in memory, with the look-up structures derived from its data when it is loaded. */
export interface WarmCartridge extends CartridgeData {
  /** Global term numbers (see terms.ts) of the local terms, sorted, and the local id of each. */
  gSorted: Uint32Array
  gLocal: Uint32Array
  /** Sentences of each term (CSR by term id), from sentence terms; then from expansions. */
  post: Uint32Array
  postOff: Uint32Array
  expPost: Uint32Array
  expPostOff: Uint32Array
  /** Passage index of each sentence. */
  passageOf: Uint32Array
  /** Number of passages each term occurs in (for the base-wide idf). */
  passageDf: Uint32Array
  /** A two-hash bit filter of `gSorted` (about 8 bits a term): most absent terms fail it at once. */
  termBits: Uint32Array
  /** Bytes this copy holds, for the warm cache's budget. */
  bytes: number
}

/** Options for compiling: chunking, and whether to fit expansions and weights. */
export interface CompileOptions {
  chunk?: ChunkOptions
  fit?: (c: WarmCartridge) => WarmCartridge
}

/** Compiles a section's text into a warm cartridge (analysis here, fitting by the `fit` hook). */
export function compileCartridge(text: string, opts: CompileOptions = {}): WarmCartridge {
  const { sentences, passages } = chunkSection(text, opts.chunk ?? defaultChunkOptions)
  const vocab: string[] = []
  // Number terms through their shared slots: a field check instead of a map look-up per word.
  const mark = nextMark()
  const terms: number[] = []
  const kinds: number[] = []
  const senses: number[] = []
  const sentOff = new Uint32Array(sentences.length + 1)
  const sents = new Uint32Array(sentences.length * 2)
  let first = true
  const onWord = (w: WordInfo, start: number) => {
    if (!w.stop) {
      const slot = w.slot
      if (slot.mark !== mark) {
        slot.mark = mark
        slot.id = vocab.push(slot.term) - 1
        senses.push(wordSense(w))
      }
      terms.push(slot.id)
      kinds.push(wordKind(w, text, start, first))
    }
    first = false
  }
  sentences.forEach((s, i) => {
    sents[2 * i] = s.start
    sents[2 * i + 1] = s.end
    first = true
    scanWords(text, s.start, s.end, onWord)
    sentOff[i + 1] = terms.length
  })
  const pass = new Uint32Array(passages.length * 2)
  passages.forEach((p, i) => {
    pass[2 * i] = p.first
    pass[2 * i + 1] = p.last
  })
  const data: CartridgeData = {
    text,
    sents,
    passages: pass,
    vocab,
    sentTerms: Uint32Array.from(terms),
    sentKinds: Uint8Array.from(kinds),
    sentOff,
    vocabSense: Int32Array.from(senses),
    expTerms: new Uint32Array(0),
    expOff: new Uint32Array(sentences.length + 1),
    weights: { ...defaultWeights },
  }
  const warm = warmCartridge(data)
  return opts.fit ? opts.fit(warm) : warm
}

/** Builds the derived look-up structures of a cartridge (on load, and again after fitting). */
export function warmCartridge(d: CartridgeData): WarmCartridge {
  const nTerms = d.vocab.length
  const nSents = d.sentOff.length - 1
  // Local terms by global number, for the binary search of `localTerm`; vocabulary strings are
  // replaced by the dictionary's shared copies.
  const gids = Uint32Array.from(d.vocab, internTerm)
  for (let i = 0; i < gids.length; i++) d.vocab[i] = termString(gids[i]!)
  const gLocal = Uint32Array.from(gids.keys()).sort((a, b) => gids[a]! - gids[b]!)
  const gSorted = Uint32Array.from(gLocal, (i) => gids[i]!)
  const passageOf = new Uint32Array(nSents)
  for (let p = 0; p < d.passages.length / 2; p++)
    for (let s = d.passages[2 * p]!; s <= d.passages[2 * p + 1]!; s++) passageOf[s] = p
  const [post, postOff] = invert(d.sentTerms, d.sentOff, nTerms)
  const [expPost, expPostOff] = invert(d.expTerms, d.expOff, nTerms)
  const passageDf = new Uint32Array(nTerms)
  for (let t = 0; t < nTerms; t++) {
    let last = -1
    for (let i = postOff[t]!; i < postOff[t + 1]!; i++) {
      const p = passageOf[post[i]!]!
      if (p !== last) passageDf[t]!++
      last = p
    }
  }
  const termBits = bitFilter(gSorted)
  const warm = {
    ...d,
    gSorted,
    gLocal,
    post,
    postOff,
    expPost,
    expPostOff,
    passageOf,
    passageDf,
    termBits,
    bytes: 0,
  }
  warm.bytes = warmBytes(warm)
  return warm
}

/** The local id of a term in a cartridge, or -1 when the section does not use it. */
export function localTerm(cart: WarmCartridge, term: string): number {
  const g = lookupTerm(term)
  return g === undefined ? -1 : localId(cart, g)
}

/**
 * The local id of a global term number in a cartridge, or -1. Searches over many cartridges resolve
 * each term's global number once (a string hash) and then call this (a binary search) per cartridge.
 */
export function localId(cart: WarmCartridge, g: number): number {
  // Searches over a large base ask every cartridge for every term and variant; most are absent.
  const bits = cart.termBits
  const mask = bits.length * 32 - 1
  const b1 = hash1(g) & mask
  if ((bits[b1 >>> 5]! & (1 << (b1 & 31))) === 0) return -1
  const b2 = hash2(g) & mask
  if ((bits[b2 >>> 5]! & (1 << (b2 & 31))) === 0) return -1
  let lo = 0
  let hi = cart.gSorted.length - 1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    const v = cart.gSorted[mid]!
    if (v === g) return cart.gLocal[mid]!
    if (v < g) lo = mid + 1
    else hi = mid - 1
  }
  return -1
}

/** A warm cartridge with other learned expansions: only their inverted lists are rebuilt. */
export function withExpansionLists(
  cart: WarmCartridge,
  expTerms: Uint32Array,
  expOff: Uint32Array,
): WarmCartridge {
  const [expPost, expPostOff] = invert(expTerms, expOff, cart.vocab.length)
  const out = { ...cart, expTerms, expOff, expPost, expPostOff }
  out.bytes = warmBytes(out)
  return out
}

/** Inverts per-sentence term lists into per-term sorted, distinct sentence lists (CSR). */
function invert(terms: Uint32Array, off: Uint32Array, nTerms: number): [Uint32Array, Uint32Array] {
  const count = new Uint32Array(nTerms + 1)
  const nItems = off.length - 1
  const lastSeen = new Int32Array(nTerms).fill(-1)
  for (let s = 0; s < nItems; s++)
    for (let i = off[s]!; i < off[s + 1]!; i++) {
      const t = terms[i]!
      if (lastSeen[t] !== s) {
        lastSeen[t] = s
        count[t + 1]!++
      }
    }
  for (let t = 0; t < nTerms; t++) count[t + 1]! += count[t]!
  const out = new Uint32Array(count[nTerms]!)
  const fill = count.slice(0, nTerms)
  lastSeen.fill(-1)
  for (let s = 0; s < nItems; s++)
    for (let i = off[s]!; i < off[s + 1]!; i++) {
      const t = terms[i]!
      if (lastSeen[t] !== s) {
        lastSeen[t] = s
        out[fill[t]!++] = s
      }
    }
  return [out, count]
}

/** The bit filter of a set of global term numbers (the hashes `localId` checks). */
function bitFilter(gids: Uint32Array): Uint32Array {
  let words = 2
  while (words * 32 < gids.length * 8) words *= 2
  const bits = new Uint32Array(words)
  const mask = words * 32 - 1
  for (const g of gids)
    for (const bit of [hash1(g) & mask, hash2(g) & mask]) bits[bit >>> 5]! |= 1 << (bit & 31)
  return bits
}

// The filter's two hashes of a global term number (`localId` tests the bits inline: a hot path).
function hash1(g: number): number {
  return Math.imul(g, 0x9e3779b1) >>> 0
}
function hash2(g: number): number {
  return Math.imul(g ^ (g >>> 15), 0x85ebca6b) >>> 0
}

/** Approximate bytes of a warm copy: typed arrays exactly, strings at two bytes a character. */
function warmBytes(w: WarmCartridge): number {
  let n = w.text.length * 2
  for (const a of [w.sents, w.passages, w.sentTerms, w.sentKinds, w.sentOff, w.expTerms]) n += a.byteLength
  for (const a of [w.expOff, w.post, w.postOff, w.expPost, w.expPostOff, w.passageOf, w.passageDf, w.gSorted])
    n += a.byteLength
  n += w.gLocal.byteLength + w.termBits.byteLength + w.vocabSense.byteLength + 8 * w.vocab.length // strings are shared
  return n
}
