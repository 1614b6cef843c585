import type { WarmCartridge } from './cartridge'

// The work arrays of a cart search (cartscan.ts): one set for every cartridge (questions run one at a
// time on the event loop), grown to the largest cartridge searched. A search leaves them as it found
// them (hit, exp and pass zero, best and bound -Infinity, qmap -1); the other arrays are written
// before they are read.

export interface Scratch {
  hit: Uint16Array
  exp: Uint16Array
  pass: Uint16Array
  best: Float64Array
  /** Per passage, the bound of its score from its marked sentences (bestBound), before the section prior. */
  bound: Float64Array
  score: Float64Array
  typed: Uint8Array
  qmap: Int8Array
  seq: Int8Array
  kseq: Uint8Array
}
let scratch: Scratch | null = null

export function scratchOf(cart: WarmCartridge): Scratch {
  const nSents = cart.sents.length / 2
  const nPassages = cart.passages.length / 2
  // The words of a sentence: at most all of the cartridge's (cheaper than finding its longest each time).
  const longest = cart.sentTerms.length
  const x = scratch
  const fits =
    x !== null &&
    x.hit.length >= nSents &&
    x.best.length >= nPassages &&
    x.qmap.length >= cart.vocab.length &&
    x.seq.length >= longest
  if (fits) return x
  const grow = (have: number | undefined, need: number) => Math.max(have ?? 0, need)
  const sents = grow(x?.hit.length, nSents)
  const passages = grow(x?.best.length, nPassages)
  const words = grow(x?.seq.length, longest)
  scratch = {
    hit: new Uint16Array(sents),
    exp: new Uint16Array(sents),
    pass: new Uint16Array(passages),
    best: new Float64Array(passages).fill(Number.NEGATIVE_INFINITY),
    bound: new Float64Array(passages).fill(Number.NEGATIVE_INFINITY),
    score: new Float64Array(sents),
    typed: new Uint8Array(sents),
    qmap: new Int8Array(grow(x?.qmap.length, cart.vocab.length)).fill(-1),
    seq: new Int8Array(words),
    kseq: new Uint8Array(words),
  }
  return scratch
}

/** Drops the shared work arrays (after a search cut short left marks in them); the next search makes new ones. */
export function forgetScratch(): void {
  scratch = null
}
