// Refits the short-answer picker's weights (src/features/engine/compose/short.ts) offline from the tuning
// split's records (`npm run bench:quality -- --strategy rag --no-abstain --no-retrieval --short-dump
// FILE`: the even-numbered articles only; the odd ones stay held out). Scores every candidate span of
// every record with the weights in short.ts and prints EM and token F1 (a null short answer counts as
// empty), by the kind of answer asked for, beside the best candidate's F1. With --fit: a listwise
// softmax fit of the expected F1 from the current weights, then coordinate ascent on F1 itself (or
// coordinate ascent from the current weights alone, whichever ends higher); fitted on the first half
// of the records (their articles) and checked on the second, and the reverse, then on all, whose
// weights it prints for short.ts. Deterministic: no randomness, fixed steps.
// Usage: bun run scripts/fit-short.ts FILE [--fit]
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { exactMatch, tokenF1 } from '../bench/lib/squad-metrics'
import {
  candidateSpans,
  FEATURES,
  shortQuestion,
  shortWeights,
  spanFeatures,
  spanWords,
  Want,
} from '../src/features/engine/compose/index'

const { values, positionals } = parseArgs({
  args: process.argv.slice(2),
  options: { fit: { type: 'boolean' } },
  allowPositionals: true,
})

interface Rec {
  question: string
  sentences: string[]
  golds: string[]
}

/** One question's candidates: a feature row each, with its F1 and exact match against the golds. */
interface Item {
  want: number
  x: Float64Array[]
  f1: number[]
  em: number[]
}

const N = FEATURES.length
const items: Item[] = readFileSync(positionals[0]!, 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as Rec)
  .map((r) => {
    const q = shortQuestion(r.question)
    const item: Item = { want: q.want, x: [], f1: [], em: [] }
    if (q.want === Want.none) return item
    r.sentences.forEach((text, rank) => {
      const words = spanWords(text)
      for (const s of candidateSpans(words)) {
        const f = spanFeatures(words, s, q, rank)
        if (f === null) continue
        const span = text.slice(words[s.from]!.start, words[s.to - 1]!.end)
        item.x.push(Float64Array.from(FEATURES, (name) => f[name]))
        item.f1.push(tokenF1(span, r.golds))
        item.em.push(exactMatch(span, r.golds) ? 1 : 0)
      }
    })
    return item
  })

/** The index of the best-scored candidate under weights `w` (-1 when none). */
function pick(item: Item, w: Float64Array): number {
  let best = -1
  let top = Number.NEGATIVE_INFINITY
  for (let c = 0; c < item.x.length; c++) {
    const x = item.x[c]!
    let s = 0
    for (let i = 0; i < N; i++) s += w[i]! * x[i]!
    if (s > top) {
      top = s
      best = c
    }
  }
  return best
}

/** Mean F1 and EM of the picked candidates over `set` (a question with none counts 0). */
function score(set: Item[], w: Float64Array): { f1: number; em: number } {
  let f1 = 0
  let em = 0
  for (const item of set) {
    const c = pick(item, w)
    if (c < 0) continue
    f1 += item.f1[c]!
    em += item.em[c]!
  }
  return { f1: f1 / set.length, em: em / set.length }
}

/** Gradient ascent on the expected F1 under a softmax over each question's candidates. */
function softmaxFit(set: Item[], w0: Float64Array, steps = 150, rate = 0.5): Float64Array {
  const w = Float64Array.from(w0)
  for (let step = 0; step < steps; step++) {
    const grad = new Float64Array(N)
    for (const item of set) {
      const n = item.x.length
      if (n === 0) continue
      const p = new Float64Array(n)
      let m = Number.NEGATIVE_INFINITY
      for (let c = 0; c < n; c++) {
        let v = 0
        for (let i = 0; i < N; i++) v += item.x[c]![i]! * w[i]!
        p[c] = v
        if (v > m) m = v
      }
      let z = 0
      for (let c = 0; c < n; c++) {
        p[c] = Math.exp(p[c]! - m)
        z += p[c]!
      }
      let mean = 0
      for (let c = 0; c < n; c++) {
        p[c] = p[c]! / z
        mean += p[c]! * item.f1[c]!
      }
      for (let c = 0; c < n; c++) {
        const g = p[c]! * (item.f1[c]! - mean)
        const x = item.x[c]!
        for (let i = 0; i < N; i++) grad[i]! += g * x[i]!
      }
    }
    for (let i = 0; i < N; i++) w[i]! += (rate * grad[i]!) / set.length
  }
  return w
}

/** Coordinate ascent on mean F1: each weight in turn moved by the step that helps most. */
function coordinateAscent(set: Item[], w0: Float64Array, rounds = 4): Float64Array {
  const w = Float64Array.from(w0)
  let best = score(set, w).f1
  for (let r = 0; r < rounds; r++) {
    let moved = false
    for (let i = 0; i < N; i++) {
      const was = w[i]!
      let keep = was
      for (const d of [-1, -0.5, -0.25, -0.1, -0.05, 0.05, 0.1, 0.25, 0.5, 1]) {
        w[i] = was + d
        const f = score(set, w).f1
        if (f > best + 1e-9) {
          best = f
          keep = w[i]!
          moved = true
        }
      }
      w[i] = keep
    }
    if (!moved) break
  }
  return w
}

/** The better of coordinate ascent from the softmax fit and from the weights given. */
function fit(set: Item[], w: Float64Array): Float64Array {
  const a = coordinateAscent(set, softmaxFit(set, w))
  const b = coordinateAscent(set, w)
  return score(set, a).f1 >= score(set, b).f1 ? a : b
}
const fmt = (s: { f1: number; em: number }) => `EM ${s.em.toFixed(3)} F1 ${s.f1.toFixed(3)}`
const current = Float64Array.from(FEATURES, (name) => shortWeights[name] ?? 0)
const oracle = items.reduce((a, it) => a + Math.max(0, ...it.f1), 0) / items.length
console.log(
  `${items.length} questions; current weights: ${fmt(score(items, current))}; best candidate F1 ${oracle.toFixed(3)}`,
)
const names = Object.fromEntries(Object.entries(Want).map(([k, v]) => [v, k]))
for (const want of Object.values(Want)) {
  const set = items.filter((it) => it.want === want)
  if (set.length > 0) console.log(`  ${names[want]}: ${set.length} questions, ${fmt(score(set, current))}`)
}
if (values.fit) {
  // Halves of the records in file order: apart from one article at the middle, each half's articles.
  const even = items.slice(0, items.length >> 1)
  const odd = items.slice(items.length >> 1)
  const wEven = fit(even, current)
  const wOdd = fit(odd, current)
  console.log(`fitted on the first half: ${fmt(score(even, wEven))}, on the second ${fmt(score(odd, wEven))}`)
  console.log(`fitted on the second half: ${fmt(score(odd, wOdd))}, on the first ${fmt(score(even, wOdd))}`)
  const w = fit(items, current)
  console.log(`fitted on all: ${fmt(score(items, w))}`)
  console.log(FEATURES.map((name, i) => `  ${name}: ${Math.round(w[i]! * 100) / 100},`).join('\n'))
}
