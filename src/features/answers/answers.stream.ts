import type { ChatMessage, LlmClient } from '../../platform/llm/openai-client'
import type { AskResult } from '../engine/engine.service'
import { llmMessages, modelDeclined, openReply, streamPieces, wholeSentences } from './answers.text'
import type { ChatEvent, Generator } from './answers.types'

/** The model spent its token budget before ending a first sentence. */
export const CUT_FALLBACK = 'The model ran out of tokens (max_tokens) before it ended a sentence.'

/** The pieces a streamed answer is made of, the first of them already read, and the prompt when a model writes it. */
export interface OpenedPieces {
  pieces: AsyncGenerator<string, string | null | undefined>
  first: IteratorResult<string, string | null | undefined>
  /** The model's prompt; empty when the answer is the extractive one. */
  messages: ChatMessage[]
  /** Why the answer is the extractive one although a model server is configured. */
  fallbackReason: string | null
}

/** What a streamed answer measured before its first event. */
export interface StreamStart {
  found: AskResult
  opened: OpenedPieces
  /** Monotonic milliseconds when the question arrived. */
  t0: number
  ttftMs: number
  contextTokens: number
  /** Frees the serving slot; called once, when the stream ends however it ends. */
  release: () => void
}

/**
 * The events of a streamed answer: its sources, the text a few words (or, from a model, a whole
 * sentence) at a time, then the figures. A model's answer cut before its first sentence ended is
 * replaced by the extractive one.
 */
export async function* answerEvents(s: StreamStart): AsyncGenerator<ChatEvent> {
  const { found, opened } = s
  const { pieces, first } = opened
  try {
    yield {
      type: 'sources',
      // A model's answer does not lead with the extractive short answer.
      shortAnswer: opened.messages.length > 0 ? null : found.shortAnswer,
      answered: found.answered,
      ...(opened.fallbackReason ? { fallbackReason: opened.fallbackReason } : {}),
      usedDocs: found.usedDocs,
      sources: found.sources,
      condensedQuestion: found.condensedQuestion,
    }
    const useLlm = opened.messages.length > 0
    let generator: Generator = useLlm ? 'llm' : 'extractive'
    let late: string | null = null
    // The model's pieces a sentence at a time (an answer cut by max_tokens ends on a whole one).
    const relay = useLlm ? wholeSentences(pieces, first) : null
    let sent = false
    if (!relay && !first.done && first.value) yield { type: 'delta', text: first.value }
    for (;;) {
      const next = relay ? await relay.next() : await pieces.next()
      if (next.done) {
        sent = next.value === true
        break
      }
      if (next.value) yield { type: 'delta', text: next.value }
    }
    if (relay && !sent) {
      // Cut before its first sentence ended: the extractive answer instead.
      generator = 'extractive'
      late = CUT_FALLBACK
      yield { type: 'delta', text: found.answer }
    }
    yield {
      type: 'done',
      metrics: {
        latencyMs: round(performance.now() - s.t0),
        ttftMs: s.ttftMs,
        retrievalMs: found.metrics.retrievalMs,
        strategy: found.strategy,
        contextTokens: s.contextTokens,
        generator,
        ...(late ? { fallbackReason: late } : {}),
      },
    }
  } finally {
    s.release()
    await pieces.return(undefined)
  }
}

/** Milliseconds to two decimals, as the serving figures are given. */
export function round(x: number): number {
  return Math.round(x * 100) / 100
}

/**
 * The pieces a streamed answer is made of and the first of them: the model's when a model server
 * is configured and the base answers the question, else (or when the server is down and not
 * strict) the extractive answer's. The first piece is awaited so that a dead server is known
 * before the first event; `fallbackFor` turns a failed model call into the reason, or throws.
 */
export async function openPieces(
  llm: LlmClient | null,
  fallbackFor: (e: unknown) => string,
  found: AskResult,
  maxTokens: number | undefined,
): Promise<OpenedPieces & { found: AskResult }> {
  const extractive = async (fallbackReason: string | null) => {
    const pieces: AsyncGenerator<string, string | null | undefined> = streamPieces(found.answer)
    return { found, pieces, first: await pieces.next(), messages: [] as ChatMessage[], fallbackReason }
  }
  if (!llm || !found.answered || found.computed) return extractive(null)
  const messages = llmMessages(found.condensedQuestion, found.sources)
  const stream = llm.stream({ messages, maxTokens })
  let reply: Awaited<ReturnType<typeof openReply>>
  try {
    reply = await openReply(stream, await stream.next())
  } catch (e) {
    return extractive(fallbackFor(e))
  }
  if (!reply.declined)
    return { found, pieces: reply.pieces, first: reply.first, messages, fallbackReason: null }
  // The model found no answer in the passages the check let through: said as the engine says it.
  await stream.return(null)
  const declined = modelDeclined(found)
  const pieces = streamPieces(declined.answer)
  return { found: declined, pieces, first: await pieces.next(), messages, fallbackReason: null }
}
