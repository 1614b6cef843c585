import { staticVector } from '../text/index'

// The static vectors of the texts the support check reads (a passage's title and text), kept by
// their text, least recently asked out past a budget. The same passages come back question after
// question (the top three of each), and a text's static vector depends on nothing else: the table
// is a fixed file. A vector handed out is shared: read it, never write it.

const BUDGET = 2 * 1024 * 1024
const kept = new Map<string, Float32Array>()
let bytes = 0

/** The bytes a kept vector counts for: its text (two a character, at most) and its values. */
function cost(text: string, v: Float32Array): number {
  return 2 * text.length + v.byteLength + 64
}

/** `staticVector(text)`, read from the kept ones when asked before. */
export function passageVector(text: string): Float32Array {
  const hit = kept.get(text)
  if (hit) {
    kept.delete(text)
    kept.set(text, hit)
    return hit
  }
  const v = staticVector(text)
  kept.set(text, v)
  bytes += cost(text, v)
  for (const [k, old] of kept) {
    if (bytes <= BUDGET) break
    kept.delete(k)
    bytes -= cost(k, old)
  }
  return v
}

/** What the kept vectors hold (for tests). */
export function passageVectorsHeld(): { entries: number; bytes: number; budget: number } {
  return { entries: kept.size, bytes, budget: BUDGET }
}
