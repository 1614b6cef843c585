import { searchCartridges } from '../cart/index'
import { type SectionRef, searchIndex } from '../rag/index'
import {
  AnswerType,
  condenseQuestion,
  planQuery,
  type RankedPassage,
  termWeights,
  withDocumentPrior,
  withDocumentTerms,
  withMeaning,
  withTermFrequency,
} from '../rank/index'
import {
  ENCODER_BAND,
  modelSignal,
  SUPPORT_PASSAGES,
  SUPPORT_THRESHOLD,
  supportQuestion,
  supportScore,
  supportSignals,
  type TermEvidence,
  unsure,
} from '../support/index'
import { composeAnswer } from './answer'
import type { AskContext, AskExplain, AskInput, AskResult, Source } from './ask-types'
import { definingFirst, definitional, definitionPhrase } from './definition'
import { ledAnswer } from './lead'
import { shortAnswer } from './short'
import { tableResult } from './table-result'
import { answerTable, cartTables } from './tables'

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
  // Without a server's model, the built-in encoder is asked only where the word-level check is unsure
  // (the passages as the sources quote them; their vectors are stored once the base is encoded).
  if (model.length === 0 && ctx.encoder && unsure(support)) {
    const passages = ranked
      .slice(0, SUPPORT_PASSAGES)
      .map((p, i) => ({ sectionId: p.ref.sectionId, ordinal: p.ordinal, text: sources[i]!.snippet }))
    model = await ctx.encoder(condensed, passages)
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
