import { chunkSection, defaultChunkOptions, ftsTerms, scanWords, type WordInfo } from '../text/index'
import type { CartridgeData } from './cartridge'

/** A passage as the index stores it: its place in the section, text, sentence spans and terms. */
export interface PassageInput {
  ordinal: number
  /**
   * Where the passage starts in its section's text: a citation is placed in its document from it
   * (compiling always knows it; absent only where a caller builds passages by hand).
   */
  start?: number
  text: string
  sents: Uint32Array
  terms: string[]
}

/** The index rows of a compiled section: each passage's text, sentence spans and index terms. */
export function passageInputs(cart: CartridgeData): PassageInput[] {
  const out: PassageInput[] = []
  for (let p = 0; p < cart.passages.length / 2; p++) {
    const first = cart.passages[2 * p]!
    const last = cart.passages[2 * p + 1]!
    const start = cart.sents[2 * first]!
    const sents = new Uint32Array((last - first + 1) * 2)
    for (let s = first; s <= last; s++) {
      sents[2 * (s - first)] = cart.sents[2 * s]! - start
      sents[2 * (s - first) + 1] = cart.sents[2 * s + 1]! - start
    }
    const terms: string[] = []
    for (let i = cart.sentOff[first]!; i < cart.sentOff[last + 1]!; i++)
      terms.push(cart.vocab[cart.sentTerms[i]!]!)
    out.push({ ordinal: p, start, text: cart.text.slice(start, cart.sents[2 * last + 1]!), sents, terms })
  }
  return out
}

/**
 * The index terms of a stored passage, read again from its text and sentence spans: the words
 * that are not stop words, in order, as compiling its section found them (`passageInputs`). Used
 * to index again a base whose index moved (engine.repo.ts).
 */
export function passageTerms(text: string, sents: Uint32Array): string[] {
  const terms: string[] = []
  for (let i = 0; i < sents.length; i += 2) {
    scanWords(text, sents[i]!, sents[i + 1]!, (w) => {
      if (!w.stop) terms.push(w.slot.term)
    })
  }
  return terms
}

/**
 * A section's index rows straight from its text, without compiling its cartridge: the same rows as
 * `passageInputs(compileCartridge(text))` (same chunking, same terms), at a fraction of the cost
 * (no word kinds, senses or fitting). Onboarding indexes these first so that the base answers by rag
 * while the cartridge follows in the background. With `fts`, each passage's terms go there as its
 * FTS5 row wants them (ftsTerm, space-separated, each after `prefix`, with their count) and its
 * `terms` stay empty.
 */
export function sectionPassages(
  text: string,
  fts?: { terms: string; count: number }[],
  prefix = '',
): PassageInput[] {
  const { sentences, passages } = chunkSection(text, defaultChunkOptions)
  const row: string[] = []
  const addTerm = (w: WordInfo) => {
    if (!w.stop) row.push(w.slot.term)
  }
  return passages.map((p, ordinal) => {
    const start = sentences[p.first]!.start
    const sents = new Uint32Array((p.last - p.first + 1) * 2)
    row.length = 0
    for (let s = p.first; s <= p.last; s++) {
      const span = sentences[s]!
      sents[2 * (s - p.first)] = span.start - start
      sents[2 * (s - p.first) + 1] = span.end - start
      if (fts) ftsTerms(text, span.start, span.end, row)
      else scanWords(text, span.start, span.end, addTerm)
    }
    let terms: string[] = []
    if (fts) fts.push({ terms: row.length === 0 ? '' : prefix + row.join(` ${prefix}`), count: row.length })
    else terms = row.slice()
    return { ordinal, start, text: text.slice(start, sentences[p.last]!.end), sents, terms }
  })
}
