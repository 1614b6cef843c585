// Refits the support model of src/features/engine/lib/support.ts offline from the tuning split's
// records (`npm run bench:quality -- --abstain-signals FILE`): a logistic model over named feature
// sets, with the threshold that loses `--lose` of the own questions. Prints, per feature set, the
// share of foreign questions declined when fitted on all of the tuning split and, to see what does
// not hold beyond the questions it was fitted on, fitted on one tuning quarter and set on the other.
// Usage: bun run scripts/refit-support.ts FILE [--lose 0.025]
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { planQuery } from '../src/features/engine/lib/query'
import { idf } from '../src/features/engine/lib/score'
import { prepareStaticVectors, staticVector } from '../src/features/engine/lib/static-vectors'
import { supportSignals, type TermEvidence } from '../src/features/engine/lib/support'
import { contentTerms } from '../src/features/engine/lib/text'

const { values, positionals } = parseArgs({
  args: process.argv.slice(2),
  options: { lose: { type: 'string' } },
  allowPositionals: true,
})
const LOSE = Number(values.lose ?? 0.025)

interface Rec {
  base: string
  strategy: string
  own: boolean
  question: string
  evidence: TermEvidence
  sources: { document_id: string; title: string; snippet: string }[]
}

prepareStaticVectors()
const recs = readFileSync(positionals[0]!, 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as Rec)

type Feat = Record<string, number>
function features(r: Rec): Feat {
  const best = r.sources[0]
  if (!best) return {}
  const s = supportSignals(r.question, r.evidence, best.snippet, best.title)
  const f: Feat = { ...s }
  const ev = r.evidence
  const rarest = idf(ev.passages, 0)
  const weights = ev.terms.map(
    (_, i) => idf(ev.passages, ev.df[i] ?? 0) * ((ev.soft & (1 << i)) !== 0 ? 0.5 : 1),
  )
  const total = weights.reduce((a, b) => a + b, 0)
  const titleTerms = new Set(contentTerms(best.title))
  // The signal the model used before the sentence's coverage (the rarest question term missing).
  const held = new Set([...contentTerms(best.snippet), ...titleTerms])
  let missing = 0
  ev.terms.forEach((t, i) => {
    if (!held.has(t) && (ev.soft & (1 << i)) === 0) missing = Math.max(missing, weights[i]! / rarest)
  })
  f.missing = missing
  const hard = ev.terms.map((_, i) => (ev.soft & (1 << i)) === 0)
  f.missCount = ev.terms.filter((t, i) => hard[i] && !held.has(t)).length
  let sentCount = 0
  for (const sent of best.snippet.split(/(?<=[.!?])\s+/)) {
    const h = new Set([...contentTerms(sent), ...titleTerms])
    const n = ev.terms.filter((t, i) => hard[i] && h.has(t)).length
    sentCount = Math.max(sentCount, n / Math.max(1, hard.filter(Boolean).length))
  }
  f.sentCount = sentCount
  f.noNames = /(?<=\S\s+)\p{Lu}/u.test(r.question) ? 0 : 1
  f.sentence2 = f.sentence! * f.sentence!
  let sentMeaning = 0
  for (const sent of best.snippet.split(/(?<=[.!?])\s+/))
    sentMeaning = Math.max(sentMeaning, cos(staticVector(r.question), staticVector(`${best.title}\n${sent}`)))
  f.sentMeaning = sentMeaning
  let tc = 0
  ev.terms.forEach((t, i) => {
    if (titleTerms.has(t)) tc += weights[i]!
  })
  f.titleCov = total > 0 ? tc / total : 0
  // Terms the base never holds (df 0), and terms the search respelled (the question's word is not the base's).
  const asked = planQuery(r.question).terms
  f.absent = ev.terms.filter((_, i) => (ev.df[i] ?? 0) === 0 && (ev.soft & (1 << i)) === 0).length > 0 ? 1 : 0
  f.respelled = asked.length === ev.terms.length ? (asked.some((t, i) => t !== ev.terms[i]) ? 1 : 0) : 1
  f.sameDoc = r.sources.filter((x) => x.document_id === best.document_id).length / r.sources.length
  f.coveredAbs = total > 0 ? (s.coverage * total) / rarest : 0
  f.totalAbs = total / rarest
  f.nTerms = ev.terms.length
  return f
}

function cos(a: Float32Array, b: Float32Array): number {
  let d = 0
  for (let i = 0; i < a.length; i++) d += a[i]! * b[i]!
  return d
}

const rows = recs.map((r) => ({ r, f: features(r) }))
// What support.ts uses now, first; then what the model used before and what else was tried.
const NOW = ['coverage', 'sentence', 'meaning', 'names', 'title']
const B4 = ['coverage', 'missing', 'meaning', 'names']
const SETS: Record<string, string[]> = {
  now: NOW,
  before: B4,
  'before+sentence': [...B4, 'sentence'],
  'before+title': [...B4, 'title'],
  'before+titleCov': [...B4, 'titleCov'],
  'now+missing': [...NOW, 'missing'],
  'now+sentMeaning': [...NOW, 'sentMeaning'],
  'now+absent': [...NOW, 'absent'],
  'now+respelled': [...NOW, 'respelled'],
  'now+sameDoc': [...NOW, 'sameDoc'],
  'now+abs': [...NOW, 'coveredAbs', 'totalAbs'],
  'now+nTerms': [...NOW, 'nTerms'],
  'now+missCount': [...NOW, 'missCount'],
  'now+sentCount': [...NOW, 'sentCount'],
  'now+noNames': [...NOW, 'noNames'],
  'now+sentence2': [...NOW, 'sentence2'],
}

function fit(X: number[][], y: number[]): number[] {
  const d = X[0]!.length
  const w = new Array(d + 1).fill(0)
  // Newton's method with a small ridge (stable on separable-ish data).
  for (let it = 0; it < 30; it++) {
    const g = new Array(d + 1).fill(0)
    const H = Array.from({ length: d + 1 }, () => new Array(d + 1).fill(0))
    for (let i = 0; i < X.length; i++) {
      const x = [1, ...X[i]!]
      const z = x.reduce((a, v, j) => a + v * w[j], 0)
      const p = 1 / (1 + Math.exp(-z))
      for (let j = 0; j <= d; j++) {
        g[j] += (p - y[i]!) * x[j]!
        for (let k = 0; k <= d; k++) H[j]![k] += p * (1 - p) * x[j]! * x[k]!
      }
    }
    for (let j = 1; j <= d; j++) {
      g[j] += 1e-3 * w[j]
      H[j]![j] += 1e-3
    }
    const step = solve(H, g)
    for (let j = 0; j <= d; j++) w[j] -= step[j]!
  }
  return w
}

function solve(A: number[][], b: number[]): number[] {
  const n = b.length
  const M = A.map((r, i) => [...r, b[i]!])
  for (let c = 0; c < n; c++) {
    let p = c
    for (let r = c + 1; r < n; r++) if (Math.abs(M[r]![c]!) > Math.abs(M[p]![c]!)) p = r
    ;[M[c], M[p]] = [M[p]!, M[c]!]
    for (let r = 0; r < n; r++) {
      if (r === c) continue
      const row = M[r]!
      const pivot = M[c]!
      const k = row[c]! / pivot[c]!
      for (let j = c; j <= n; j++) row[j] = row[j]! - k * pivot[j]!
    }
  }
  return M.map((r, i) => r[n]! / r[i]!)
}

const score = (w: number[], x: number[]) =>
  1 / (1 + Math.exp(-x.reduce((a, v, j) => a + v * w[j + 1]!, w[0]!)))

/** Threshold losing LOSE of the own rows; the share of foreign rows under it. */
function evaluate(w: number[], data: { x: number[]; y: number }[], threshold?: number) {
  const own = data
    .filter((d) => d.y === 1)
    .map((d) => score(w, d.x))
    .sort((a, b) => a - b)
  const t = threshold ?? own[Math.floor(own.length * LOSE)]!
  const foreign = data.filter((d) => d.y === 0)
  const declined = foreign.filter((d) => score(w, d.x) < t).length / foreign.length
  const lost = own.filter((s) => s < t).length / own.length
  return { t, declined, lost }
}

// A record's quarter: its question's article is in base A's half when asked of A as own, etc. The
// tuning quarters are A1 (own of base A, foreign of base B) and B1 (the reverse).
const quarter = (r: Rec) => (r.own ? r.base : r.base === 'A' ? 'B' : 'A')
for (const [name, keys] of Object.entries(SETS)) {
  const data = rows.map(({ r, f }) => ({ r, x: keys.map((k) => f[k] ?? 0), y: r.own ? 1 : 0 }))
  const w = fit(
    data.map((d) => d.x),
    data.map((d) => d.y),
  )
  const all = evaluate(w, data)
  const per = ['rag', 'cart'].map((s) =>
    evaluate(
      w,
      data.filter((d) => d.r.strategy === s),
      all.t,
    ),
  )
  // Two-fold across the tuning quarters: fit and set the threshold on one, measure on the other.
  const cross = ['A', 'B'].map((q) => {
    const train = data.filter((d) => quarter(d.r) === q)
    const test = data.filter((d) => quarter(d.r) !== q)
    const wq = fit(
      train.map((d) => d.x),
      train.map((d) => d.y),
    )
    return evaluate(wq, test, evaluate(wq, train).t)
  })
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`
  console.log(
    `${name.padEnd(14)} all: declined ${pct(all.declined)} lost ${pct(all.lost)} t=${all.t.toFixed(4)} | ` +
      `rag ${pct(per[0]!.declined)}/${pct(per[0]!.lost)} cart ${pct(per[1]!.declined)}/${pct(per[1]!.lost)} | ` +
      `cross ${cross.map((c) => `${pct(c.declined)}/${pct(c.lost)}`).join(' ')}`,
  )
  console.log(
    `${''.padEnd(14)} w = ${w.map((v, i) => `${i ? keys[i - 1] : 'bias'} ${v.toFixed(2)}`).join(', ')}`,
  )
}
