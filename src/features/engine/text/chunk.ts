import { type Span, splitParagraphs, splitSentences } from './sentences'

/** A passage: a run of whole sentences [first, last] of one section, and its character span. */
export interface Passage extends Span {
  first: number
  last: number
}

/** The chunking of a section's text: sentence spans and the passages that group them. */
export interface Chunking {
  sentences: Span[]
  passages: Passage[]
}

/** Passage sizing in words; passages follow paragraphs and split long ones at sentence ends. */
export interface ChunkOptions {
  maxWords: number
  minWords: number
}

/** Defaults: a passage is about a paragraph; long paragraphs are split into even parts. */
export const defaultChunkOptions: ChunkOptions = { maxWords: 250, minWords: 30 }

function words(text: string, s: Span): number {
  let n = 0
  let inWord = false
  for (let i = s.start; i < s.end; i++) {
    const c = text.charCodeAt(i)
    const space = c === 32 || c === 10 || c === 9 || c === 13
    if (!space && !inWord) n++
    inWord = !space
  }
  return n
}

/**
 * Splits a section's text into sentences and passages. Passages never cross a paragraph boundary,
 * except that a short paragraph (a heading, a one-line item) joins the next one so it is not a
 * passage of its own; a paragraph longer than `maxWords` is cut at sentence ends into even parts.
 */
export function chunkSection(text: string, opts: ChunkOptions = defaultChunkOptions): Chunking {
  const sentences: Span[] = []
  const counts: number[] = []
  const passages: Passage[] = []
  let pending: { first: number; words: number } | null = null
  for (const para of splitParagraphs(text)) {
    const first = sentences.length
    let total = 0
    for (const s of splitSentences(text, para.start, para.end)) {
      const n = words(text, s)
      sentences.push(s)
      counts.push(n)
      total += n
    }
    if (sentences.length === first) continue
    let start = first
    if (pending) {
      start = pending.first
      total += pending.words
      pending = null
    }
    if (total < opts.minWords) {
      pending = { first: start, words: total }
      continue
    }
    const target = total / Math.max(1, Math.ceil(total / opts.maxWords))
    let acc = 0
    let from = start
    for (let i = start; i < sentences.length; i++) {
      acc += counts[i]!
      // Cut once the part reaches its even share, unless what is left would be a scrap.
      if (i === sentences.length - 1 || (acc >= target && total - acc >= opts.minWords / 2)) {
        pushPassage(passages, sentences, from, i)
        from = i + 1
        total -= acc
        acc = 0
      }
    }
  }
  if (pending) {
    const prev = passages[passages.length - 1]
    if (prev && prev.last === pending.first - 1) {
      prev.last = sentences.length - 1
      prev.end = sentences[prev.last]!.end
    } else pushPassage(passages, sentences, pending.first, sentences.length - 1)
  }
  return { sentences, passages }
}

function pushPassage(out: Passage[], sentences: Span[], first: number, last: number): void {
  out.push({ start: sentences[first]!.start, end: sentences[last]!.end, first, last })
}
