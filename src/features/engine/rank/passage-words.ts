import { FNV_OFFSET, FNV_PRIME, scanWords, wordSense } from '../text/index'
import { wordKind } from './query'

/**
 * What rag's ranking reads of a passage's content words, worked out once when the passage is
 * indexed instead of at every search (scanning each candidate's text was a third of rag's time):
 * per word in order, its index term's hash, its token kinds where it stands (query.ts's wordKind)
 * and its WordNet noun sense (-1 for none); per sentence, where its words start.
 */
export interface PassageWords {
  /** Word offsets of the sentences: sentence s holds words [off[s], off[s + 1]). */
  off: Uint32Array
  terms: Uint32Array
  senses: Int32Array
  kinds: Uint8Array
}

// Bumped whenever what is stored changes meaning (the tokeniser, the kinds, the sense table's
// numbering): a passage stored under another version is read again from its text.
const VERSION = 1
const HEAD = 3

/** FNV-1a over the UTF-16 units of an index term: how a term is named in PassageWords. */
export function termHash(term: string): number {
  let h = FNV_OFFSET
  for (let i = 0; i < term.length; i++) h = Math.imul(h ^ term.charCodeAt(i), FNV_PRIME)
  return h >>> 0
}

/** The content words of a passage from its text and sentence spans (offsets into the text). */
export function scanPassageWords(text: string, sents: Uint32Array): PassageWords {
  const nSent = sents.length >> 1
  const off = new Uint32Array(nSent + 1)
  const terms: number[] = []
  const senses: number[] = []
  const kinds: number[] = []
  for (let s = 0; s < nSent; s++) {
    let first = true
    scanWords(text, sents[2 * s]!, sents[2 * s + 1]!, (w, at) => {
      if (!w.stop) {
        terms.push(termHash(w.term))
        senses.push(wordSense(w))
        kinds.push(wordKind(w, text, at, first))
      }
      first = false
    })
    off[s + 1] = terms.length
  }
  return {
    off,
    terms: Uint32Array.from(terms),
    senses: Int32Array.from(senses),
    kinds: Uint8Array.from(kinds),
  }
}

/** The stored form: a header (version, sentences, words), the offsets, terms and senses, then the kinds. */
export function encodePassageWords(p: PassageWords): Uint8Array {
  const nSent = p.off.length - 1
  const n = p.terms.length
  const words = HEAD + nSent + 1 + 2 * n
  const out = new Uint8Array(4 * words + n)
  const u32 = new Uint32Array(out.buffer, 0, words)
  u32.set([VERSION, nSent, n])
  u32.set(p.off, HEAD)
  u32.set(p.terms, HEAD + nSent + 1)
  new Int32Array(out.buffer, 4 * (HEAD + nSent + 1 + n), n).set(p.senses)
  out.set(p.kinds, 4 * words)
  return out
}

/** The stored form read back (views over one aligned copy), or null when absent or of another version. */
export function decodePassageWords(blob: Uint8Array | null): PassageWords | null {
  if (!blob || blob.byteLength < 4 * HEAD) return null
  // SQLite's blobs need not start on a 4-byte boundary.
  const bytes = blob.byteOffset % 4 === 0 ? blob : blob.slice()
  const head = new Uint32Array(bytes.buffer, bytes.byteOffset, HEAD)
  if (head[0] !== VERSION) return null
  const nSent = head[1]!
  const n = head[2]!
  const at = (words: number) => bytes.byteOffset + 4 * words
  return {
    off: new Uint32Array(bytes.buffer, at(HEAD), nSent + 1),
    terms: new Uint32Array(bytes.buffer, at(HEAD + nSent + 1), n),
    senses: new Int32Array(bytes.buffer, at(HEAD + nSent + 1 + n), n),
    kinds: new Uint8Array(bytes.buffer, at(HEAD + nSent + 1 + 2 * n), n),
  }
}

/**
 * The question's terms and their variants by term hash, for one search: each hash's value packs
 * the question term it is (bits 0-7) and the first term it is a variant of (bits 8-15), each plus
 * one; 0 for a hash that is neither. Open addressing over a power-of-two table, as a word's look-up
 * runs for every word of every candidate.
 */
export class TermTags {
  private keys = new Uint32Array(64)
  private values = new Uint32Array(64)
  private used = new Uint8Array(64)
  private size = 0

  /** Marks `term` as question term `index` (`shift` 0) or as a variant of it (`shift` 8), keeping an earlier mark. */
  tag(term: string, index: number, shift: 0 | 8): void {
    const slot = this.slotOf(termHash(term), true)
    if (((this.values[slot]! >> shift) & 0xff) === 0) this.values[slot]! |= (index + 1) << shift
  }

  /** The packed marks of a term hash (0 when none). */
  get(hash: number): number {
    const slot = this.slotOf(hash, false)
    return slot < 0 ? 0 : this.values[slot]!
  }

  private slotOf(hash: number, add: boolean): number {
    const mask = this.keys.length - 1
    for (let i = (hash ^ (hash >>> 16)) & mask; ; i = (i + 1) & mask) {
      if (this.used[i] === 0) {
        if (!add) return -1
        if (2 * (this.size + 1) > this.keys.length) {
          this.grow()
          return this.slotOf(hash, true)
        }
        this.used[i] = 1
        this.keys[i] = hash
        this.size++
        return i
      }
      if (this.keys[i] === hash) return i
    }
  }

  private grow(): void {
    const { keys, values, used } = this
    this.keys = new Uint32Array(keys.length * 2)
    this.values = new Uint32Array(keys.length * 2)
    this.used = new Uint8Array(keys.length * 2)
    this.size = 0
    for (let i = 0; i < keys.length; i++) if (used[i]) this.values[this.slotOf(keys[i]!, true)] = values[i]!
  }
}
