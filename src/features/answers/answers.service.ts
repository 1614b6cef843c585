import type { Static } from '@sinclair/typebox'
import type { Principal } from '../../platform/auth/principal'
import type { Clock } from '../../platform/clock/clock'
import { type Gate, SaturatedError } from '../../platform/concurrency/gate'
import { newId, type Random } from '../../platform/crypto/random'
import type { Db } from '../../platform/db/db'
import { fail, notFound } from '../../platform/errors/errors'
import { type SseEvent, sseResponse } from '../../platform/http/sse'
import type { ChatMessage, LlmClient } from '../../platform/llm/openai-client'
import { LlmUnavailableError } from '../../platform/llm/server-request'
import type { Logger } from '../../platform/log/log'
import type { CorporaService } from '../corpora/corpora.service'
import type { AskResult, Engine, Source } from '../engine/engine.service'
import { AnswersRepo } from './answers.repo'
import type { ChatReq, FeedbackReq } from './answers.schemas'
import { describeFromSources, llmMessages, streamPieces, uncut, wholeSentences } from './answers.text'

/** One source of an answer, and the engine's answer (ChatResp without the serving metrics). */
export type { Source }
export type EngineAnswer = AskResult

/** The answer engine's query call. */
export type Answerer = Pick<Engine, 'ask'>

export interface AnswersDeps {
  db: Db
  clock: Clock
  random: Random
  corpora: CorporaService
  engine: Answerer
  recordQuery: (workspaceId: string, corpusId: string) => void
  /** The model server, when configured; null means extractive answers. */
  llm: LlmClient | null
  /**
   * With a model server that is down or too slow: true answers 503 with Retry-After, false (the
   * default) answers with the extractive answer, marked `fallback: "extractive"`.
   */
  strict?: boolean
  /** Where fallbacks are reported (at most once a minute). */
  log?: Logger
  gate: Gate
}

/** Why an answer is the extractive one although a model server is configured. */
export interface Fallback {
  fallback: 'extractive'
  fallback_reason: string
}

// A model server that keeps failing is reported at most this often (every question would fail alike).
const REPORT_EVERY_MS = 60_000

type Req = Static<typeof ChatReq>

/** A ChatResp plus the measured serving figures. */
export type ChatResult = EngineAnswer &
  Partial<Fallback> & {
    metrics: EngineAnswer['metrics'] & {
      ttft_ms: number
      context_tokens: number
      generator: 'extractive' | 'llm'
    }
  }

/** A rough token count (4 characters a token), for cost and context figures. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4)
}

/** Chat, streamed chat, catalog descriptions and answer feedback. */
export class AnswersService {
  private reported = Number.NEGATIVE_INFINITY
  private readonly repo: AnswersRepo
  constructor(private readonly d: AnswersDeps) {
    this.repo = new AnswersRepo(d.db)
  }

  /**
   * What a failed model call becomes: in strict mode (or for a failure that is not the server being
   * unavailable) the error, 503 with Retry-After when unavailable; otherwise the fallback marker.
   */
  private fallbackFor(e: unknown): Fallback {
    if (this.d.strict || !(e instanceof LlmUnavailableError)) rethrowUnavailable(e)
    const now = this.d.clock.now().getTime()
    if (now - this.reported >= REPORT_EVERY_MS) {
      this.reported = now
      this.d.log?.warn('answering with the extractive engine: the model server failed', { error: e.message })
    }
    return { fallback: 'extractive', fallback_reason: `${e.message} The answer is the extractive one.` }
  }

  /** Checks the base can answer and resolves pinned ids; throws the 4xx otherwise. */
  private prepare(workspaceId: string, corpusId: string, req: Req) {
    // The hot path of every question: one cheap lookup, not the base's document counters.
    const state = this.d.corpora.servingState(workspaceId, corpusId)
    if (!state) throw notFound('Document base')
    const servable = state.status === 'ready' || (state.status === 'training' && state.anyReady)
    if (!servable) throw fail('corpus_not_ready')
    let docIds: string[] | undefined
    if (req.doc_ids?.length) {
      const unknown: string[] = []
      const resolved = new Set<string>()
      for (const id of req.doc_ids) {
        const row = this.d.corpora.document(corpusId, id)
        if (!row) unknown.push(id)
        else resolved.add(row.parent_id ?? row.id)
      }
      if (unknown.length > 0) {
        throw fail('unknown_documents', `These document ids are not in the base: ${unknown.join(', ')}.`, {
          unknown,
        })
      }
      docIds = [...resolved]
    }
    return {
      question: req.question,
      k: req.k ?? 3,
      history: req.history,
      docIds,
      strategy: req.strategy ?? 'cart',
    }
  }

  /** Takes a serving slot or answers 503 at once (bounded queue). */
  private async slot(): Promise<() => void> {
    try {
      return await this.d.gate.acquire()
    } catch (e) {
      if (e instanceof SaturatedError) throw unavailable('The answer engine is saturated.', 1)
      throw e
    }
  }

  /** Answers a question with its sources. */
  async chat(principal: Principal, corpusId: string, req: Req): Promise<ChatResult> {
    const input = this.prepare(principal.workspaceId, corpusId, req)
    const release = await this.slot()
    try {
      const t0 = performance.now()
      const found = await this.d.engine.ask(corpusId, input)
      let answer = found.answer
      let generator: 'extractive' | 'llm' = 'extractive'
      let fallback: Fallback | null = null
      let contextTokens = estimateTokens(found.sources.map((s) => s.snippet).join('\n'))
      // A base that does not answer the question is not given to the model to answer from.
      if (this.d.llm && found.answered) {
        const messages = llmMessages(found.condensed_q, found.sources)
        try {
          const done = await this.d.llm.completion({ messages, maxTokens: req.max_tokens })
          const text = uncut(done.text, done.finishReason)
          if (text.trim()) {
            answer = text
            generator = 'llm'
            contextTokens = estimateTokens(messages.map((m) => m.content).join('\n'))
          } else fallback = CUT_FALLBACK
        } catch (e) {
          fallback = this.fallbackFor(e)
        }
      }
      const latency = round(performance.now() - t0)
      this.d.recordQuery(principal.workspaceId, corpusId)
      return {
        ...found,
        answer,
        ...fallback,
        metrics: {
          ...found.metrics,
          latency_ms: latency,
          ttft_ms: latency,
          context_tokens: contextTokens,
          generator,
        },
      }
    } finally {
      release()
    }
  }

  /**
   * Streams an answer as SSE: `head` (sources), `delta`s, then one `done` (or one `error`). Every
   * refusal that can be known before the first byte (not ready, unknown pins, saturation, model
   * server down) is an ordinary error response instead.
   */
  async chatStream(principal: Principal, corpusId: string, req: Req): Promise<Response> {
    const input = this.prepare(principal.workspaceId, corpusId, req)
    const release = await this.slot()
    let released = false
    const done = () => {
      if (!released) release()
      released = true
    }
    try {
      const t0 = performance.now()
      const found = await this.d.engine.ask(corpusId, input)
      const { pieces, first, messages, fallback } = await this.openPieces(found, req.max_tokens)
      const useLlm = messages.length > 0
      const ttft = round(performance.now() - t0)
      this.d.recordQuery(principal.workspaceId, corpusId)
      const contextTokens = estimateTokens(
        useLlm ? messages.map((m) => m.content).join('\n') : found.sources.map((s) => s.snippet).join('\n'),
      )
      async function* events(): AsyncGenerator<SseEvent> {
        try {
          yield {
            event: 'head',
            data: {
              head: true,
              answered: found.answered,
              ...fallback,
              used_docs: found.used_docs,
              sources: found.sources,
              condensed_q: found.condensed_q,
            },
          }
          let generator: 'extractive' | 'llm' = useLlm ? 'llm' : 'extractive'
          let late: Fallback | null = null
          // The model's pieces a sentence at a time (an answer cut by max_tokens ends on a whole one).
          const relay = useLlm ? wholeSentences(pieces, first) : null
          let sent = false
          if (!relay && !first.done && first.value) yield { event: 'delta', data: { delta: first.value } }
          for (;;) {
            const next = relay ? await relay.next() : await pieces.next()
            if (next.done) {
              sent = next.value === true
              break
            }
            if (next.value) yield { event: 'delta', data: { delta: next.value } }
          }
          if (relay && !sent) {
            // Cut before its first sentence ended: the extractive answer instead.
            generator = 'extractive'
            late = CUT_FALLBACK
            yield { event: 'delta', data: { delta: found.answer } }
          }
          yield {
            event: 'done',
            data: {
              done: true,
              metrics: {
                latency_ms: round(performance.now() - t0),
                ttft_ms: ttft,
                retrieval_ms: found.metrics.retrieval_ms,
                strategy: found.strategy,
                context_tokens: contextTokens,
                generator,
                ...late,
              },
            },
          }
        } finally {
          done()
          await pieces.return(undefined)
        }
      }
      return sseResponse(events(), {
        terminal: ['done', 'error'],
        onError: (e) => ({ event: 'error', data: { error: (e as Error).message || 'The answer failed.' } }),
        keepAliveMs: 15_000,
      })
    } catch (e) {
      done()
      throw e
    }
  }

  /**
   * The pieces a streamed answer is made of and the first of them: the model's when a model server
   * is configured and the base answers the question, else (or when the server is down and not
   * strict) the extractive answer's. The first piece is awaited so that a dead server is known
   * before the 200.
   */
  private async openPieces(found: EngineAnswer, maxTokens: number | undefined) {
    const extractive = async (fallback: Fallback | null) => {
      const pieces: AsyncGenerator<string, string | null | undefined> = streamPieces(found.answer)
      return { pieces, first: await pieces.next(), messages: [] as ChatMessage[], fallback }
    }
    if (!this.d.llm || !found.answered) return extractive(null)
    const messages = llmMessages(found.condensed_q, found.sources)
    const pieces = this.d.llm.stream({ messages, maxTokens })
    try {
      return { pieces, first: await pieces.next(), messages, fallback: null }
    } catch (e) {
      return extractive(this.fallbackFor(e))
    }
  }

  /** Generates and stores the catalog description of a ready base (null when no sentence came out). */
  async describe(
    principal: Principal,
    corpusId: string,
  ): Promise<{ id: string; description: string | null }> {
    const corpus = this.d.corpora.get(principal.workspaceId, corpusId)
    if (corpus.status !== 'ready') throw fail('corpus_not_ready')
    const release = await this.slot()
    try {
      const probe = await this.d.engine.ask(corpusId, {
        question: `What is ${corpus.name} about? overview introduction summary`,
        k: 5,
        strategy: 'rag',
      })
      let description: string | null = null
      let modelAnswered = false
      if (this.d.llm && probe.sources.length > 0) {
        try {
          const text = await this.d.llm.complete({
            messages: [
              {
                role: 'system',
                content:
                  'Write a one or two sentence catalog description of a document collection from the excerpts given. No preamble.',
              },
              {
                role: 'user',
                content: probe.sources.map((s, i) => `[${i + 1}] ${s.filename}: ${s.snippet}`).join('\n'),
              },
            ],
            maxTokens: 120,
          })
          description = completeSentences(text)
          modelAnswered = true
        } catch (e) {
          this.fallbackFor(e)
        }
      }
      if (!modelAnswered) {
        // Without a model, the base's own documents name what it covers when no passage stands out.
        const named =
          probe.sources.length > 0 ? probe.sources : this.documentsAsSources(principal.workspaceId, corpusId)
        description = describeFromSources(corpus.name, corpus.n_documents, named)
      }
      this.d.corpora.setDescription(
        principal.workspaceId,
        corpusId,
        description,
        this.d.clock.now().getTime(),
      )
      return { id: corpusId, description }
    } finally {
      release()
    }
  }

  private documentsAsSources(workspaceId: string, corpusId: string): Source[] {
    return this.d.corpora.documents(workspaceId, corpusId, false, null).items.map((d) => ({
      id: d.id,
      title: d.title ?? d.filename,
      document_id: d.id,
      filename: d.filename,
      snippet: '',
      score: 0,
    }))
  }

  /** Records a rating of an answer. */
  feedback(
    principal: Principal,
    corpusId: string,
    req: Static<typeof FeedbackReq>,
  ): { id: string; status: 'recorded' } {
    this.d.corpora.get(principal.workspaceId, corpusId)
    const id = newId(this.d.random, 'fb')
    this.repo.insertFeedback({
      id,
      workspaceId: principal.workspaceId,
      corpusId,
      userId: principal.userId,
      keyId: principal.keyId,
      rating: req.rating,
      question: req.question ?? null,
      answer: req.answer ?? null,
      comment: req.comment ?? null,
      sourceIds: JSON.stringify(req.source_ids ?? []),
      strategy: req.strategy ?? null,
      createdAt: this.d.clock.now().getTime(),
    })
    return { id, status: 'recorded' }
  }
}

/** The model spent its token budget before ending a first sentence. */
const CUT_FALLBACK: Fallback = {
  fallback: 'extractive',
  fallback_reason: 'The model ran out of tokens (max_tokens) before it ended a sentence.',
}

function unavailable(message: string, retryAfter: number) {
  return fail(
    'serving_unavailable',
    message,
    { retry_after_seconds: retryAfter },
    { 'retry-after': String(retryAfter) },
  )
}

function rethrowUnavailable(e: unknown): never {
  if (e instanceof LlmUnavailableError) throw unavailable(e.message, e.retryAfterSeconds)
  throw e
}

/** Keeps only whole sentences; null when there is none. */
export function completeSentences(text: string): string | null {
  const m = text.trim().match(/^[\s\S]*[.!?](?=\s|$)/)
  const s = m?.[0]?.trim() ?? ''
  return /[A-Za-z]/.test(s) && s.split(/\s+/).length >= 3 ? s : null
}

function round(x: number): number {
  return Math.round(x * 100) / 100
}
