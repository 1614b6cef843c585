// Refits the support model of src/features/engine/support/support.ts offline from the tuning split's
// records (`npm run bench:quality -- --abstain-signals FILE`): a logistic model over named feature
// sets, fitted on each question's first passage, with the threshold that loses `--lose` of the own
// questions. A set named "... topN" scores a question by the best of its first N passages (the
// engine asks three: the passages an answer may quote); the others by the first passage only. Prints,
// per feature set, the share of foreign questions declined when fitted on all of the tuning split
// and, to see what does not hold beyond the questions it was fitted on, fitted on one tuning
// quarter and set on the other ("cross"), and the same with the threshold set on the other quarter
// itself ("at loss": how well the model separates the questions, apart from where the threshold
// falls).
// Usage: bun run scripts/refit-support.ts FILE [--lose 0.025]
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { idf, planQuery } from '../src/features/engine/rank/index'
import { supportQuestion, supportSignals, type TermEvidence } from '../src/features/engine/support/index'
import { contentTerms, prepareStaticVectors, staticVector, tokenize } from '../src/features/engine/text/index'

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
  /** With an embeddings server (--embed): the support signal `model` of each of the first passages. */
  model?: (number | null)[]
}

prepareStaticVectors()
const recs = readFileSync(positionals[0]!, 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as Rec)

type Feat = Record<string, number>
function features(r: Rec, best: Rec['sources'][number], rank: number): Feat {
  const s = supportSignals(supportQuestion(r.question, r.evidence), best.snippet, best.title, r.model?.[rank])
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
  // The mean idf of the question's hard terms (how rare its words are in this base).
  const hardWeights = weights.filter((_, i) => hard[i])
  f.meanIdf = hardWeights.length ? hardWeights.reduce((a, b) => a + b, 0) / hardWeights.length / rarest : 0
  // A proper name of the question the whole base never spells (or that the search respelled).
  const index = new Map(ev.terms.map((t, i) => [t, i]))
  f.nameAbsent = [...r.question.matchAll(/(?<=\S\s+)\p{Lu}[\p{L}\p{N}]*/gu)].some((m) => {
    const t = tokenize(m[0])[0]
    if (!t || t.stop) return false
    const q = index.get(t.term)
    return q === undefined || (ev.df[q] ?? 0) === 0
  })
    ? 1
    : 0
  // Phrases: the share of the question's adjacent term pairs adjacent in the passage, and the longest
  // run of the question's words (function words too) the passage has in the same order, per word.
  const plan = planQuery(r.question)
  const pairs = new Set(plan.pairs.map(([a, b]) => `${plan.terms[a]} ${plan.terms[b]}`))
  const inPassage = contentTerms(best.snippet)
  const found = new Set<string>()
  for (let i = 0; i + 1 < inPassage.length; i++) {
    const pair = `${inPassage[i]} ${inPassage[i + 1]}`
    if (pairs.has(pair)) found.add(pair)
  }
  f.pairs = pairs.size ? found.size / pairs.size : 1
  const qw = tokenize(r.question).map((t) => t.term)
  const pw = tokenize(best.snippet).map((t) => t.term)
  let run = 0
  let prev = new Uint16Array(pw.length + 1)
  for (const w of qw) {
    const cur = new Uint16Array(pw.length + 1)
    pw.forEach((p, j) => {
      if (p !== w) return
      cur[j + 1] = prev[j]! + 1
      run = Math.max(run, cur[j + 1]!)
    })
    prev = cur
  }
  f.run = qw.length ? run / qw.length : 0
  return f
}

function cos(a: Float32Array, b: Float32Array): number {
  let d = 0
  for (let i = 0; i < a.length; i++) d += a[i]! * b[i]!
  return d
}

// Each question's first passages (the engine's support is the best of the first three).
const TOP = 5
const rows = recs.map((r) => ({ r, f: r.sources.slice(0, TOP).map((src, i) => features(r, src, i)) }))
// What support.ts uses now, first; then what the model used before and what else was tried.
const NOW = ['coverage', 'sentence', 'meaning', 'names', 'title', 'untyped']
const S5 = ['coverage', 'sentence', 'meaning', 'names', 'title']
const B4 = ['coverage', 'missing', 'meaning', 'names']
const SETS: Record<string, string[]> = {
  'now+model top3': [...NOW, 'model'],
  'now-meaning+model top3': [...NOW.filter((k) => k !== 'meaning'), 'model'],
  'now top3': NOW,
  now: NOW,
  'now top2': NOW,
  'now top5': NOW,
  '5 signals top3': S5,
  '5 signals': S5,
  before: B4,
  'before+sentence': [...B4, 'sentence'],
  'before+title': [...B4, 'title'],
  'before+titleCov': [...B4, 'titleCov'],
  'now+meanIdf top3': [...NOW, 'meanIdf'],
  'now+nameAbsent top3': [...NOW, 'nameAbsent'],
  'now+pairs top3': [...NOW, 'pairs'],
  'now+run top3': [...NOW, 'run'],
  'now+sameDoc top3': [...NOW, 'sameDoc'],
  '5 signals+missing': [...S5, 'missing'],
  '5 signals+sentMeaning': [...S5, 'sentMeaning'],
  '5 signals+absent': [...S5, 'absent'],
  '5 signals+respelled': [...S5, 'respelled'],
  '5 signals+sameDoc': [...S5, 'sameDoc'],
  '5 signals+abs': [...S5, 'coveredAbs', 'totalAbs'],
  '5 signals+nTerms': [...S5, 'nTerms'],
  '5 signals+missCount': [...S5, 'missCount'],
  '5 signals+sentCount': [...S5, 'sentCount'],
  '5 signals+noNames': [...S5, 'noNames'],
  '5 signals+sentence2': [...S5, 'sentence2'],
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

interface Row {
  r: Rec
  /** Features of the question's first passages (none when nothing matched). */
  xs: number[][]
  y: number
}

/** A question's score: the best of its first `top` passages' scores. */
const rowScore = (w: number[], d: Row, top: number) =>
  d.xs.length === 0 ? 0 : Math.max(...d.xs.slice(0, top).map((x) => score(w, x)))

/** Threshold losing LOSE of the own rows; the share of foreign rows under it. */
function evaluate(w: number[], data: Row[], top: number, threshold?: number) {
  const own = data
    .filter((d) => d.y === 1)
    .map((d) => rowScore(w, d, top))
    .sort((a, b) => a - b)
  const t = threshold ?? own[Math.floor(own.length * LOSE)]!
  const foreign = data.filter((d) => d.y === 0)
  const declined = foreign.filter((d) => rowScore(w, d, top) < t).length / foreign.length
  const lost = own.filter((s) => s < t).length / own.length
  return { t, declined, lost }
}

/** The model fitted on the first passage of each question that has one. */
function fitRows(data: Row[]): number[] {
  const fitted = data.filter((d) => d.xs.length > 0)
  return fit(
    fitted.map((d) => d.xs[0]!),
    fitted.map((d) => d.y),
  )
}

// A record's quarter: its question's article is in base A's half when asked of A as own, etc. The
// tuning quarters are A1 (own of base A, foreign of base B) and B1 (the reverse).
const quarter = (r: Rec) => (r.own ? r.base : r.base === 'A' ? 'B' : 'A')
for (const [name, keys] of Object.entries(SETS)) {
  const top = Number(/top(\d)$/.exec(name)?.[1] ?? 1)
  const data: Row[] = rows.map(({ r, f }) => ({
    r,
    xs: f.map((x) => keys.map((k) => x[k] ?? 0)),
    y: r.own ? 1 : 0,
  }))
  const w = fitRows(data)
  const all = evaluate(w, data, top)
  const per = ['rag', 'cart'].map((s) =>
    evaluate(
      w,
      data.filter((d) => d.r.strategy === s),
      top,
      all.t,
    ),
  )
  // Two-fold across the tuning quarters: fit and set the threshold on one, measure on the other.
  const cross = ['A', 'B'].map((q) => {
    const train = data.filter((d) => quarter(d.r) === q)
    const test = data.filter((d) => quarter(d.r) !== q)
    const wq = fitRows(train)
    return { set: evaluate(wq, test, top, evaluate(wq, train, top).t), atLoss: evaluate(wq, test, top) }
  })
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`
  console.log(
    `${name.padEnd(14)} all: declined ${pct(all.declined)} lost ${pct(all.lost)} t=${all.t.toFixed(4)} | ` +
      `rag ${pct(per[0]!.declined)}/${pct(per[0]!.lost)} cart ${pct(per[1]!.declined)}/${pct(per[1]!.lost)} | ` +
      `cross ${cross.map((c) => `${pct(c.set.declined)}/${pct(c.set.lost)}`).join(' ')} | ` +
      `at loss ${cross.map((c) => pct(c.atLoss.declined)).join(' ')}`,
  )
  console.log(
    `${''.padEnd(14)} w = ${w.map((v, i) => `${i ? keys[i - 1] : 'bias'} ${v.toFixed(2)}`).join(', ')}`,
  )
}
