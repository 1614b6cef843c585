import type { DecodedPassage } from '../engine.passages'
import type { EngineRepo } from '../engine.repo'
import {
  byScore,
  defaultWeights,
  idf,
  pairSet,
  passageScore,
  type QueryPlan,
  type RankedPassage,
  type RankedSentence,
  respellPlan,
  type ScoreWeights,
  scored,
  sectionPrior,
  sentenceScoresOf,
  sequenced,
  sequenceFeaturesOf,
  TermTags,
  TokenKind,
  termWeights,
} from '../rank/index'
import type { TermEvidence } from '../support/index'
import { contentTerms, KindTest, kindTest, variantsOf } from '../text/index'

/** Where a retrieved passage comes from: the fields a source needs. */
export interface SectionRef {
  sectionId: string
  documentId: string
  title: string
  filename: string
}

/** Options of an index search. */
export interface IndexSearchOptions {
  /** Candidates taken from FTS5's BM25 order before re-ranking by sentence. */
  pool: number
  documentIds?: string[]
  weights?: ScoreWeights
  /** Filled in with the question's terms as searched and their passage counts (for support.ts). */
  evidence?: TermEvidence
}

const titleTermCache = new Map<string, string[]>()
function titleTerms(title: string): string[] {
  let t = titleTermCache.get(title)
  if (!t) {
    if (titleTermCache.size > 10_000) titleTermCache.clear()
    t = contentTerms(title)
    titleTermCache.set(title, t)
  }
  return t
}

/**
 * Passages up to which a base's whole vocabulary is read at once (one fts5vocab scan: about 3 ms at
 * 1,100 passages, 19 ms at 11,000), and then answers every count and spelling list of its generation
 * (TermCounts) instead of a point read for each term a question is the first to ask about.
 */
const WHOLE_VOCABULARY = 16_384
/** Searches of a base at one passage count before its vocabulary is read (not on every write of a run). */
const WHOLE_FROM = 4
/** Terms past which a vocabulary is not asked for again at that count (TermCounts keeps fewer). */
const WHOLE_TERMS = 100_000
const searchesAt = new WeakMap<EngineRepo, Map<number, { passages: number; searches: number }>>()

/**
 * Asks for a small base's whole vocabulary once it is searched a few times at one size: read at the
 * first ask of each generation (TermCounts keeps it for the generation), then answered from memory.
 */
function readVocabulary(repo: EngineRepo, key: number, passages: number): void {
  if (passages > WHOLE_VOCABULARY) return
  const bases = searchesAt.get(repo) ?? new Map()
  searchesAt.set(repo, bases)
  let s = bases.get(key)
  if (s?.passages !== passages) {
    if (bases.size >= 1024) bases.clear()
    s = { passages, searches: 0 }
    bases.set(key, s)
  }
  if (++s.searches < WHOLE_FROM) return
  // A vocabulary too large to be kept is not read again at this count.
  if (repo.termsWithPrefix(key, '').length > WHOLE_TERMS) s.searches = Number.NEGATIVE_INFINITY
}

/**
 * The rag strategy's retrieval: FTS5 BM25 over the base's passages gives a candidate pool, whose
 * passages are re-read, split into their stored sentences and ranked by the shared sentence scorer.
 */
export function searchIndex(
  repo: EngineRepo,
  baseId: string,
  input: QueryPlan,
  limit: number,
  opts: IndexSearchOptions,
): RankedPassage<SectionRef>[] {
  const base = repo.openBase(baseId)
  if (base === null || input.terms.length === 0) return []
  const { key, passages: nPassages } = base
  readVocabulary(repo, key, nPassages)
  const { plan, df } = respellPlan(input, repo.documentFrequencies(key, input.terms), (p) =>
    repo.termsWithPrefix(key, p),
  )
  if (opts.evidence)
    Object.assign(opts.evidence, { terms: plan.terms, df, passages: nPassages, soft: plan.soft })
  const qw = termWeights(plan, nPassages, df)
  const live = plan.terms.filter((_, i) => qw[i]! > 0)
  // Word-family variants and near-synonyms of the terms: weak evidence in scoring. They join the
  // FTS5 query only for a term the base lacks (for the others they crowded out better candidates),
  // which then weighs as its rarest known variant would.
  // Each term is tagged for this search with its question term and the first term it is a variant
  // of, so a passage's words (stored by term hash) map to the question without a string.
  const tags = new TermTags()
  variantsOf(
    plan.terms,
    (t) => repo.termsWithPrefix(key, t).map((r) => r.term),
    (c) => repo.documentFrequencies(key, c).map((d) => d > 0),
  ).forEach((vs, q) => {
    if (vs.length > 0 && qw[q] === 0) {
      qw[q] = idf(nPassages, Math.min(...repo.documentFrequencies(key, vs)))
      live.push(...vs)
    }
    if (qw[q]! > 0) for (const v of vs) tags.tag(v, q, 8)
  })
  const hits = repo.match(key, live, opts.pool, opts.documentIds)
  const rows = repo.pooled(
    key,
    hits.map((h) => h.id),
  )
  let total = 0
  for (const w of qw) total += w
  for (const [q, t] of plan.terms.entries()) tags.tag(t, q, 0)
  const pairs = pairSet(plan)
  const weights = opts.weights ?? defaultWeights
  const kind = plan.kind.length ? kindTest(plan.kind) : NO_KIND
  const ranked = rows.map((row) => rankPassage(row, plan, tags, qw, total, pairs, weights, kind))
  // The section prior, from the sentences of the pool (the cart strategy counts the whole section).
  const counts = new Map<string, Uint16Array>()
  for (const r of ranked) {
    let c = counts.get(r.ref.sectionId)
    if (!c) {
      c = new Uint16Array(qw.length)
      counts.set(r.ref.sectionId, c)
    }
    for (const s of r.sentences) for (let q = 0; q < qw.length; q++) if (s.hit & (1 << q)) c[q]!++
  }
  for (const r of ranked) r.score += sectionPrior(counts.get(r.ref.sectionId)!, qw)
  ranked.sort(byScore)
  const top = ranked.slice(0, limit)
  // Each passage's sentences best first; only for the passages kept (the others are dropped here).
  for (const r of top) r.sentences.sort(byScore)
  return top
}

/**
 * A passage's word marks, and its sentences' expansion bits and features (hit, win, pairs, length,
 * type tests: bit 1 typeOk, bit 2 pickTypeOk), reused from one passage to the next (ranking is
 * synchronous; each is set before it is read): no object a sentence.
 */
let scratch = sized(4096, 256)
function sized(w: number, n: number) {
  const ints = () => new Int32Array(n)
  const [qidx, kinds, typed] = [new Int8Array(w), new Uint8Array(w), new Uint8Array(n)]
  return { qidx, kinds, typed, exps: ints(), hits: ints(), wins: ints(), pairs: ints(), lens: ints() }
}
function scratchFor(words: number, sentences: number) {
  if (scratch.qidx.length < words || scratch.exps.length < sentences)
    scratch = sized(Math.max(scratch.qidx.length, 2 * words), Math.max(scratch.exps.length, 2 * sentences))
  return scratch
}

/** The kind test of a question that asks for no kind of answer: never asked (rankPassage). */
const NO_KIND = new KindTest([])

/**
 * Marks a passage's words with their question terms, counts the terms (`tf`) and writes each
 * sentence's expansion bits and features into `x`; answers the bits of the terms the passage holds.
 */
function markSentences(
  pw: DecodedPassage['words'],
  n: number,
  x: ReturnType<typeof sized>,
  tags: TermTags,
  qw: Float64Array,
  tf: Uint16Array,
  plan: QueryPlan,
  pairs: Set<number>,
  kind: KindTest,
): number {
  const { qidx, kinds, exps } = x
  let passMask = 0
  for (let s = 0; s < n; s++) {
    const from = pw.off[s]!
    const to = pw.off[s + 1]!
    let exp = 0
    let any = false
    for (let i = from; i < to; i++) {
      const id = tags.get(pw.terms[i]!)
      if (id > 0xff) exp |= 1 << ((id >> 8) - 1)
      const q = (id & 0xff) - 1
      if (q >= 0) {
        any = true
        if (qw[q]! > 0) tf[q]!++
      }
      qidx[i] = q
    }
    // A sentence without a question term has no features but its length (sequenceFeaturesOf gives
    // the same): its words' kinds are never read.
    if (any) {
      // A loop for each case, and no kind is NO_KIND rather than null (`kind?.has`): JavaScriptCore
      // hoists the check of `kind`'s type out of the loops, and it left the optimized code whenever
      // a question with a kind followed ones without (or the reverse).
      if (kind === NO_KIND) for (let i = from; i < to; i++) kinds[i] = pw.kinds[i]!
      else
        for (let i = from; i < to; i++)
          kinds[i] = kind.has(pw.senses[i]!) ? pw.kinds[i]! | TokenKind.noun : pw.kinds[i]!
      sequenceFeaturesOf(qidx, kinds, from, to, plan.want, pairs, qw)
      const f = sequenced
      x.hits[s] = f.hit
      x.wins[s] = f.win
      x.pairs[s] = f.pairs
      x.typed[s] = (f.typeOk ? 1 : 0) | (f.pickTypeOk ? 2 : 0)
    } else x.hits[s] = x.wins[s] = x.pairs[s] = x.typed[s] = 0
    x.lens[s] = to - from
    passMask |= x.hits[s]!
    exps[s] = exp
  }
  return passMask
}

function rankPassage(
  { row, spans, words: pw }: DecodedPassage,
  plan: QueryPlan,
  tags: TermTags,
  qw: Float64Array,
  total: number,
  pairs: Set<number>,
  weights: ScoreWeights,
  kind: KindTest,
): RankedPassage<SectionRef> {
  const words = pw.terms.length
  const n = pw.off.length - 1
  const x = scratchFor(words, n)
  const tf = new Uint16Array(plan.terms.length)
  const passMask = markSentences(pw, n, x, tags, qw, tf, plan, pairs, kind)
  const exps = x.exps
  let titleMask = 0
  const tt = titleTerms(row.title)
  // A loop, not forEach: its closure (and the scope it keeps titleMask in) was made a passage.
  for (let i = 0; i < plan.terms.length; i++) if (tt.includes(plan.terms[i]!)) titleMask |= 1 << i
  const sentences: RankedSentence[] = []
  let best = Number.NEGATIVE_INFINITY
  for (let i = 0; i < n; i++) {
    const hit = x.hits[i]!
    const exp = exps[i]!
    if (hit === 0 && exp === 0) continue
    const near = i > 0 ? x.hits[i - 1]! : 0
    const typed = x.typed[i]!
    sentenceScoresOf(
      hit,
      x.wins[i]!,
      x.pairs[i]!,
      (typed & 1) !== 0,
      (typed & 2) !== 0,
      x.lens[i]!,
      titleMask,
      passMask,
      exp,
      qw,
      total,
      weights,
      near,
    )
    if (scored.rank > best) best = scored.rank
    sentences.push({
      start: spans[2 * i]!,
      end: spans[2 * i + 1]!,
      score: scored.pick,
      hit,
      typeOk: (typed & 2) !== 0,
    })
  }
  // Best first once the pool is ranked (searchIndex), for the passages it keeps.
  return {
    ref: { sectionId: row.sectionId, documentId: row.documentId, title: row.title, filename: row.filename },
    id: row.id,
    ordinal: row.ordinal,
    text: row.text,
    start: 0,
    end: row.text.length,
    score: sentences.length ? passageScore(best, passMask, titleMask, qw) : Number.NEGATIVE_INFINITY,
    sentences,
    tf,
    words,
  }
}
