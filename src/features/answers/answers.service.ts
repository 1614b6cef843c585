import type { Static } from '@sinclair/typebox'
import type { Clock } from '../../platform/clock/clock'
import { type Gate, SaturatedError } from '../../platform/concurrency/gate'
import { newId, type Random } from '../../platform/crypto/random'
import type { Db } from '../../platform/db/db'
import { fail, notFound } from '../../platform/http/errors'
import type { Principal } from '../../platform/http/route'
import { type SseEvent, sseResponse } from '../../platform/http/sse'
import type { LlmClient } from '../../platform/llm/openai-client'
import { LlmUnavailableError } from '../../platform/llm/server-request'
import type { CorporaService } from '../corpora/corpora.service'
import type { AskResult, Engine, Source } from '../engine/engine.service'
import type { ChatReq, FeedbackReq } from './answers.schemas'
import { describeFromSources, llmMessages, streamPieces } from './answers.text'

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
  gate: Gate
}

type Req = Static<typeof ChatReq>

/** A ChatResp plus the measured serving figures. */
export type ChatResult = EngineAnswer & {
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
  constructor(private readonly d: AnswersDeps) {}

  /** Checks the base can answer and resolves pinned ids; throws the 4xx otherwise. */
  private prepare(workspaceId: string, corpusId: string, req: Req) {
    // The hot path of every question: one cheap lookup, not the base's document counters.
    const state = this.d.corpora.repo.servingState(workspaceId, corpusId)
    if (!state) throw notFound('Document base')
    const servable = state.status === 'ready' || (state.status === 'training' && state.anyReady)
    if (!servable) throw fail('corpus_not_ready')
    let docIds: string[] | undefined
    if (req.doc_ids?.length) {
      const unknown: string[] = []
      const resolved = new Set<string>()
      for (const id of req.doc_ids) {
        const row = this.d.corpora.repo.document(corpusId, id)
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
      let contextTokens = estimateTokens(found.sources.map((s) => s.snippet).join('\n'))
      if (this.d.llm && found.sources.length > 0) {
        const messages = llmMessages(found.condensed_q, found.sources)
        contextTokens = estimateTokens(messages.map((m) => m.content).join('\n'))
        answer = await this.d.llm.complete({ messages, maxTokens: req.max_tokens }).catch(rethrowUnavailable)
        generator = 'llm'
      }
      const latency = round(performance.now() - t0)
      this.d.recordQuery(principal.workspaceId, corpusId)
      return {
        ...found,
        answer,
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
      const useLlm = this.d.llm !== null && found.sources.length > 0
      const messages = useLlm ? llmMessages(found.condensed_q, found.sources) : []
      const pieces = useLlm
        ? this.d.llm!.stream({ messages, maxTokens: req.max_tokens })
        : streamPieces(found.answer)
      // Wait for the first piece before answering 200, so a dead model server is still a 503.
      const first = await pieces.next().catch(rethrowUnavailable)
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
              used_docs: found.used_docs,
              sources: found.sources,
              condensed_q: found.condensed_q,
            },
          }
          if (!first.done && first.value) yield { event: 'delta', data: { delta: first.value } }
          for (;;) {
            const next = await pieces.next()
            if (next.done) break
            if (next.value) yield { event: 'delta', data: { delta: next.value } }
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
                generator: useLlm ? 'llm' : 'extractive',
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
      let description: string | null
      if (this.d.llm && probe.sources.length > 0) {
        const text = await this.d.llm
          .complete({
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
          .catch(rethrowUnavailable)
        description = completeSentences(text)
      } else {
        // Without a model, the base's own documents name what it covers when no passage stands out.
        const named =
          probe.sources.length > 0 ? probe.sources : this.documentsAsSources(principal.workspaceId, corpusId)
        description = describeFromSources(corpus.name, corpus.n_documents, named)
      }
      this.d.corpora.repo.update(
        principal.workspaceId,
        corpusId,
        { description },
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
    this.d.db.$client
      .query(
        `INSERT INTO answer_feedback (id, workspace_id, corpus_id, user_id, key_id, rating, question, answer, comment,
           source_ids, strategy, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        id,
        principal.workspaceId,
        corpusId,
        principal.userId,
        principal.keyId,
        req.rating,
        req.question ?? null,
        req.answer ?? null,
        req.comment ?? null,
        JSON.stringify(req.source_ids ?? []),
        req.strategy ?? null,
        this.d.clock.now().getTime(),
      )
    return { id, status: 'recorded' }
  }
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
