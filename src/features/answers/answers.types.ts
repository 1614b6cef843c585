import type { AskMetrics, AskResult, Source } from '../engine/engine.service'

/** Which generator wrote an answer: the extractive engine or the model server. */
export type Generator = 'extractive' | 'llm'

/** The engine's figures plus the measured serving ones. */
export interface ChatMetrics extends AskMetrics {
  ttftMs: number
  contextTokens: number
  generator: Generator
}

/** An answer with its sources and serving figures (ChatResp, in the domain's words). */
export interface ChatResult extends AskResult {
  /**
   * Set when a model server is configured but the answer is the extractive one: why (the server was
   * down or too slow, or spent its tokens before ending a sentence).
   */
  fallbackReason?: string
  metrics: ChatMetrics
}

/** What a streamed answer measured, sent when it ends. */
export interface StreamMetrics {
  latencyMs: number
  ttftMs: number
  retrievalMs: number
  strategy: 'cart' | 'rag'
  contextTokens: number
  generator: Generator
  /** Set when the model's answer was cut before its first sentence ended and the extractive one was sent. */
  fallbackReason?: string
}

/**
 * What a streamed answer is made of: its sources first (before any text), the text piece by piece,
 * then the measured figures. A failure after the first event ends the stream by throwing.
 */
export type ChatEvent =
  | {
      type: 'sources'
      /** The extractive short answer; null when a model writes the answer. */
      shortAnswer: string | null
      answered: boolean
      fallbackReason?: string
      usedDocs: string[]
      sources: Source[]
      condensedQuestion: string
    }
  | { type: 'delta'; text: string }
  | { type: 'done'; metrics: StreamMetrics }
