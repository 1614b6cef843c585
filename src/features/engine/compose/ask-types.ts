import type { CartEntry, CartRoute } from '../cart/index'
import type { EngineRepo } from '../engine.repo'
import type { SectionRef } from '../rag/index'
import type { RankedPassage, Turn } from '../rank/index'
import type { References, SupportEncoder, SupportSignals, TermEvidence } from '../support/index'
import type { TableReader } from './tables'

// The ask pipeline's vocabulary (ask.ts): a question as asked, its sources, answer and metrics, what
// a benchmark may ask to see, and what the pipeline reads.

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
  /**
   * The built-in sentence encoder's signal of the passages (support/encodings.ts EncoderCheck), asked
   * when the word-level check is unsure; absent with an embeddings server or when off.
   */
  encoder?: SupportEncoder | null
  /** Where rag reads the rows of a table a question asks about (cart reads its warm cartridges); none: no table answers. */
  tables?: TableReader | null
  now(): number
}
