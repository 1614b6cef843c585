import type { EngineRepo } from '../engine.repo'
import { composeAnswer } from './answer'
import type { CartRoute } from './cartroute'
import { type CartEntry, searchCartridges } from './cartsearch'
import { condenseQuestion, type Turn } from './condense'
import { definingFirst, definitional, definitionPhrase } from './definition'
import { ENCODER_BAND, type EncoderEmbed, encoderSignals, unsure } from './encoder-check'
import { ledAnswer } from './lead'
import { AnswerType, planQuery } from './query'
import { type SectionRef, searchIndex } from './ragsearch'
import {
  type RankedPassage,
  termWeights,
  withDocumentPrior,
  withDocumentTerms,
  withMeaning,
  withTermFrequency,
} from './rank'
import { modelSignal, type References } from './reference'
import { shortAnswer } from './short'
import {
  SUPPORT_PASSAGES,
  SUPPORT_THRESHOLD,
  type SupportSignals,
  supportQuestion,
  supportScore,
  supportSignals,
  type TermEvidence,
} from './support'
import { tableResult } from './table-result'
import { answerTable, cartTables, type TableReader } from './tables'

/** A question to a base, as ChatReq carries it. */
export interface AskInput {
  question: string
  k?: number
  /** At most one source per document (the best passage of each of the k best documents). */
  distinctDocuments?: boolean
  history?: Turn[]
  docIds?: string[]
  strategy?: 'cart' | 'rag'
}

/** One source of an answer: a passage and the document it comes from. */
export interface Source {
  /** The passage: `<sectionId>:<ordinal>`. */
  id: string
  title: string
  documentId: string
  filename: string
  snippet: string
  score: number
}

/** What answering took, measured by the engine. */
export interface AskMetrics {
  latencyMs: number
  retrievalMs: number
  strategy: 'cart' | 'rag'
  k: number
  /** The support model's probability that the best passage answers the question (support.ts). */
  support: number
}

/** The engine's answer to a question. */
export interface AskResult {
  /** The answer: the short answer if it reads as one (lead.ts), then the sentences, each with its [n]. */
  answer: string
  /**
   * The exact span (a name, a date, a number) answering a fact question, picked from the cited
   * sentences; null when the answer was declined or the question does not ask for a fact (why, how).
   */
  shortAnswer: string | null
  /**
   * False when the base holds no passage that supports an answer: `answer` then says so (NO_ANSWER,
   * no citation) and `sources` are only the closest passages found, not evidence.
   */
  answered: boolean
  strategy: 'cart' | 'rag'
  /** The documents the answer drew on (none when it was declined). */
  usedDocs: string[]
  sources: Source[]
  /** The question as searched: a follow-up rewritten with what the history names. */
  condensedQuestion: string
  /**
   * True when the answer was computed from a table's rows (tables.ts), not quoted from passages: its
   * figures are in no passage, so a model server is not asked to write it from the sources.
   */
  computed?: boolean
  metrics: AskMetrics
}

/** What a benchmark may ask `ask` to report beside the answer (see Engine.ask). */
export interface AskExplain {
  signals?: SupportSignals
  /** With an embeddings server, the `model` signal of each passage support was asked of (reference.ts modelSignal). */
  model?: (number | null)[]
  unchecked?: string
  evidence?: TermEvidence
  /** The sentences the short answer was picked from, best first (bench/quality.ts dumps them to fit the picker). */
  sentences?: string[]
}

/** Re-ranking by meaning for one question: the model's weight and each strategy's way to a passage's vector. */
export interface Meaning {
  weight: number
  question: Promise<Float32Array | null>
  /** The reference texts (reference.ts) under an embeddings server's model; null for the built-in one. */
  references: Promise<References | null> | null
  vectorOf(strategy: 'cart' | 'rag'): (p: RankedPassage<SectionRef>) => Float32Array | null
}

/** What the pipeline reads: rag's index, cart's warm cartridges, the embedder's side, and a timer. */
export interface AskContext {
  index: EngineRepo
  carts(baseId: string): Promise<{ entries: CartEntry<SectionRef>[]; route: CartRoute }>
  /** Null without an embedder; started before the search so the embedding is fetched meanwhile. */
  meaning(question: string): Meaning | null
  /** The built-in sentence encoder, asked when the word-level check is unsure; absent with an embeddings server or when off. */
  encoder?: EncoderEmbed | null
  /** Where rag reads the rows of a table a question asks about (cart reads its warm cartridges); none: no table answers. */
  tables?: TableReader | null
  now(): number
}

/** Said when the base holds nothing that answers the question (the answer is then `answered: false`). */
export const NO_ANSWER = 'The documents in this base do not answer this question.'

/**
 * Passages a distinct-documents search ranks before keeping one per document: ten per wanted source,
 * and at least 200, so a long document's many passages do not hide the next documents.
 */
const DISTINCT_DEPTH = 10
const DISTINCT_POOL = 200

/** The first (best) passage of each document, in order. */
function bestPerDocument(ranked: RankedPassage<SectionRef>[]): RankedPassage<SectionRef>[] {
  const seen = new Set<string>()
  return ranked.filter((p) => !seen.has(p.ref.documentId) && seen.add(p.ref.documentId) !== undefined)
}

/** Candidates rag re-ranks from FTS5's BM25 order. */
const RAG_POOL = 40

/**
 * The ask pipeline: condense and plan the question, retrieve with the chosen strategy, re-rank,
 * check that a passage supports an answer, then compose it (or decline).
 */
export async function askBase(
  ctx: AskContext,
  baseId: string,
  input: AskInput,
  explain?: AskExplain,
): Promise<AskResult> {
  const t0 = ctx.now()
  const strategy = input.strategy ?? 'cart'
  const k = input.k ?? 3
  const condensed = condenseQuestion(input.question, input.history)
  const plan = planQuery(condensed)
  // The question's embedding is fetched while the strategy searches.
  const meaning = ctx.meaning(condensed)
  const evidence: TermEvidence = { terms: [], df: [], passages: 0, soft: 0 }
  // Distinct documents need a deeper pool: several of the best passages may share a document.
  const depth = input.distinctDocuments ? Math.max(k * DISTINCT_DEPTH, DISTINCT_POOL) : k
  let ranked = await retrieve(ctx, baseId, plan, strategy, depth, input.docIds, evidence)
  ranked = withDocumentPrior(withTermFrequency(ranked, plan.terms.length), (r) => r.documentId, ranked.length)
  // Ranking documents, a document's whole text is evidence too. Not when passages are asked for:
  // there it moved squad-dev's best passage to a weaker one of a matching article (RESULTS.md).
  if (input.distinctDocuments)
    ranked = withDocumentTerms(ranked, (r) => r.documentId, searchedWeights(evidence))
  const question = meaning && (await meaning.question)
  if (question && meaning) ranked = withMeaning(ranked, question, meaning.vectorOf(strategy), meaning.weight)
  // A question about a table's values is answered from its rows, computed: no passage says it.
  const reader = strategy === 'rag' ? (ctx.tables ?? null) : cartTables((await ctx.carts(baseId)).entries)
  const table = reader && answerTable(reader, baseId, condensed, ranked, k, input.docIds)
  if (table) return tableResult(table, strategy, k, condensed, t0, ctx.now)
  // A definitional question is asked of the passage that defines its subject, wherever the search put it.
  const defines = definitional(condensed)
  if (defines) ranked = definingFirst(ranked, defines)
  ranked = (input.distinctDocuments ? bestPerDocument(ranked) : ranked).slice(0, k)
  const sources = ranked.map(toSource)
  const references = question && meaning?.references && (await meaning.references)
  let model =
    question && meaning && references
      ? modelSignal(question, references, ranked.slice(0, SUPPORT_PASSAGES).map(meaning.vectorOf(strategy)))
      : []
  let support = supportOf(condensed, evidence, sources, model, explain)
  // Without a server's model, the built-in encoder is asked only where the word-level check is unsure.
  if (model.length === 0 && ctx.encoder && unsure(support)) {
    const passages = sources.slice(0, SUPPORT_PASSAGES).map((s) => s.snippet)
    model = await encoderSignals(ctx.encoder, condensed, passages)
    if (model.length > 0) support = supportOf(condensed, evidence, sources, model, explain)
  }
  if (explain) explain.model = model
  if (explain) explain.evidence = evidence
  const t1 = ctx.now()
  const weights = new Map<string, number>()
  for (const t of plan.terms) weights.set(t, 1)
  // Decided on the retrieval evidence alone: nothing is composed from passages that do not answer.
  const answered = support >= SUPPORT_THRESHOLD
  const compose = () => composeAnswer(ranked, { weights, want: plan.want & ~AnswerType.noun, defines })
  const composed = answered ? compose() : null
  // A definition's short answer is what the defining sentence says the subject is, when it says so briefly.
  const defined = defines && composed?.ranked[0] ? definitionPhrase(composed.ranked[0], defines) : null
  const short = composed ? (defined ?? shortAnswer(condensed, composed.ranked)) : null
  const answer = composed ? ledAnswer(composed, short, condensed, defines, defined) : ''
  if (explain) explain.unchecked = answered ? answer : compose().answer
  if (explain && composed) explain.sentences = composed.ranked
  return {
    answer: answer || NO_ANSWER,
    shortAnswer: answer ? short : null,
    answered: answer !== '',
    strategy,
    // A declined answer used no document: its sources are only the closest passages.
    usedDocs: answer ? [...new Set(sources.map((s) => s.documentId))] : [],
    sources,
    condensedQuestion: condensed,
    metrics: {
      latencyMs: round(ctx.now() - t0),
      retrievalMs: round(t1 - t0),
      strategy,
      k,
      support: round(support),
    },
  }
}

/** The idf weights of the question's terms as the strategy searched them (respelled, soft terms halved). */
function searchedWeights(evidence: TermEvidence): Float64Array {
  const plan = { terms: evidence.terms, pairs: [], want: 0, soft: evidence.soft, kind: [] }
  return termWeights(plan, evidence.passages, evidence.df)
}

/** The candidates of a strategy, best first: rag from the index, cart from the warm cartridges. */
async function retrieve(
  ctx: AskContext,
  baseId: string,
  plan: ReturnType<typeof planQuery>,
  strategy: 'cart' | 'rag',
  k: number,
  pinned: string[] | undefined,
  evidence: TermEvidence,
): Promise<RankedPassage<SectionRef>[]> {
  const docIds = pinned?.length ? pinned : undefined
  if (strategy === 'rag') {
    return searchIndex(ctx.index, baseId, plan, Math.max(k, 20), {
      pool: Math.max(RAG_POOL, k),
      documentIds: docIds,
      evidence,
    })
  }
  const { entries, route } = await ctx.carts(baseId)
  // The route indexes the whole base: a search pinned to some documents scans theirs.
  if (docIds) {
    const pinnedEntries = entries.filter((e) => docIds.includes(e.ref.documentId))
    return searchCartridges(pinnedEntries, plan, Math.max(k, 20), { evidence })
  }
  return searchCartridges(entries, plan, Math.max(k, 20), { evidence, route })
}

/**
 * The best support among the passages an answer may quote (composeAnswer draws on the first three),
 * asked in order; one above the encoder's band ends it (the best is then answered whatever the rest say).
 */
function supportOf(
  condensed: string,
  evidence: TermEvidence,
  sources: Source[],
  model: (number | null)[],
  explain?: AskExplain,
): number {
  let support = 0
  if (sources.length === 0) return support
  const asked = supportQuestion(condensed, evidence)
  for (const [i, s] of sources.slice(0, SUPPORT_PASSAGES).entries()) {
    const signals = supportSignals(asked, s.snippet, s.title, model[i])
    const score = supportScore(signals)
    if (score <= support) continue
    support = score
    if (explain) explain.signals = signals
    if (support > ENCODER_BAND.high) break
  }
  return support
}

function toSource(p: RankedPassage<SectionRef>): Source {
  return {
    id: `${p.ref.sectionId}:${p.ordinal}`,
    title: p.ref.title,
    documentId: p.ref.documentId,
    filename: p.ref.filename,
    snippet: p.text.slice(p.start, p.end),
    score: round(p.score),
  }
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000
}
