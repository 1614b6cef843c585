import type { Static } from '@sinclair/typebox'
import type { Principal } from '../../platform/auth/principal'
import type { Clock } from '../../platform/clock/clock'
import { type Gate, SaturatedError } from '../../platform/concurrency/gate'
import { newId, type Random } from '../../platform/crypto/random'
import type { Store } from '../../platform/db/store'
import { fail, notFound } from '../../platform/errors/errors'
import type { QuestionOrigin } from '../../platform/events/events'
import type { Outbox } from '../../platform/events/outbox'
import type { LlmClient } from '../../platform/llm/openai-client'
import { LlmUnavailableError } from '../../platform/llm/server-request'
import type { Logger } from '../../platform/log/log'
import type { CorporaService } from '../corpora/corpora.service'
import type { Engine } from '../engine/engine.service'
import { Allowance, type Counted, type QueryAllowance } from './answers.allowance'
import { describeBase } from './answers.describe'
import { rethrowUnavailable, unavailable } from './answers.errors'
import { AnswersRepo, type FeedbackCount, QuestionLog } from './answers.repo'
import type { ChatReq, FeedbackReq } from './answers.schemas'
import { answerEvents, CUT_FALLBACK, openPieces, round } from './answers.stream'
import { declineState, llmMessages, modelDeclined, uncut } from './answers.text'
import type { ChatEvent, ChatResult, Generator } from './answers.types'

export type { QuestionOrigin } from '../../platform/events/events'
export { type Counted, LOAD_PASS_HEADER, ORIGIN_HEADER, originOf } from './answers.allowance'
export type { ChatEvent, ChatMetrics, ChatResult, StreamMetrics } from './answers.types'

/** The answer engine's query call. */
export type Answerer = Pick<Engine, 'ask'>

export interface AnswersDeps {
  store: Store
  clock: Clock
  random: Random
  corpora: CorporaService
  engine: Answerer
  /** Each question takes one of the month's `queries_per_month` before any work (answers.allowance.ts). */
  plans: QueryAllowance
  /** Each answered question is told as `question.answered` (usage counts it). */
  events: Outbox
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
  objects: { assertReadable(workspaceId: string): Promise<void> } // a key turned off refuses (docs/encryption.md)
}

// A model server that keeps failing is reported at most this often (every question would fail alike).
const REPORT_EVERY_MS = 60_000

type Req = Static<typeof ChatReq>

/** A rough token count (4 characters a token), for cost and context figures. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4)
}

/** Chat, streamed chat, catalog descriptions and answer feedback. */
export class AnswersService {
  private reported = Number.NEGATIVE_INFINITY
  private readonly repo: AnswersRepo
  private readonly questions: QuestionLog
  /** Questions against the plan's cap; the scale test's pass (its load over HTTP is exempt). */
  readonly allowance: Allowance
  constructor(private readonly d: AnswersDeps) {
    this.repo = new AnswersRepo(d.store)
    this.questions = new QuestionLog(d.events)
    this.allowance = new Allowance(d)
  }

  /** Takes one question of the month for a caller that answers it in parts (compare); answers its give-back. */
  takeQuestion(workspaceId: string): Promise<() => Promise<void>> {
    return this.allowance.take(workspaceId, 'take')
  }

  /**
   * What a failed model call becomes: in strict mode (or for a failure that is not the server being
   * unavailable) the error, 503 with Retry-After when unavailable; otherwise why the answer falls back.
   */
  private fallbackFor(e: unknown): string {
    if (this.d.strict || !(e instanceof LlmUnavailableError)) rethrowUnavailable(e)
    const now = this.d.clock.now().getTime()
    if (now - this.reported >= REPORT_EVERY_MS) {
      this.reported = now
      this.d.log?.warn('answering with the extractive engine: the model server failed', { error: e.message })
    }
    return `${e.message} The answer is the extractive one.`
  }

  /** Checks the base can answer and resolves pinned ids; throws the 4xx otherwise. */
  private async prepare(workspaceId: string, corpusId: string, req: Req) {
    // The hot path of every question: one cheap lookup, not the base's document counters.
    const state = await this.d.corpora.servingState(workspaceId, corpusId)
    if (!state) throw notFound('Document base')
    await this.d.objects.assertReadable(workspaceId)
    const servable = state.status === 'ready' || (state.status === 'training' && state.anyReady)
    if (!servable) throw fail('corpus_not_ready')
    let docIds: string[] | undefined
    if (req.doc_ids?.length) {
      const unknown: string[] = []
      const resolved = new Set<string>()
      for (const id of req.doc_ids) {
        const row = await this.d.corpora.document(corpusId, id)
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
      distinctDocuments: req.distinct_documents ?? false,
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

  /**
   * Answers a question with its sources; `origin` says who asked (usage counts load apart) and
   * `counted` how it counts against the plan: a question that fails before it is answered (503, an
   * engine error) gives back what it took.
   */
  async chat(
    principal: Principal,
    corpusId: string,
    req: Req,
    origin: QuestionOrigin = 'person',
    counted: Counted = 'take',
  ): Promise<ChatResult> {
    const input = await this.prepare(principal.workspaceId, corpusId, req)
    const giveBack = await this.allowance.take(principal.workspaceId, counted)
    let release = () => {}
    try {
      release = await this.slot()
      const t0 = performance.now()
      let found = await this.d.engine.ask(corpusId, input)
      let answer = found.answer
      let generator: Generator = 'extractive'
      let fallback: string | null = null
      let contextTokens = estimateTokens(found.sources.map((s) => s.snippet).join('\n'))
      // A base that does not answer the question is not given to the model to answer from, nor is an
      // answer computed from a table's rows (its figures are in no source the model would read).
      if (this.d.llm && found.answered && !found.computed) {
        const messages = llmMessages(found.condensedQuestion, found.sources)
        try {
          const done = await this.d.llm.completion({ messages, maxTokens: req.max_tokens })
          const text = uncut(done.text, done.finishReason)
          if (text.trim()) {
            generator = 'llm'
            contextTokens = estimateTokens(messages.map((m) => m.content).join('\n'))
            // The model may find no answer in the passages the check let through.
            found = declineState(text) === 'declined' ? modelDeclined(found) : found
            answer = found.answered ? text : found.answer
          } else fallback = CUT_FALLBACK
        } catch (e) {
          fallback = this.fallbackFor(e)
        }
      }
      const latency = round(performance.now() - t0)
      this.questions.answered(principal, corpusId, found, origin)
      return {
        ...found,
        answer,
        // The model's answer does not lead with the extractive short answer.
        shortAnswer: generator === 'llm' ? null : found.shortAnswer,
        ...(fallback ? { fallbackReason: fallback } : {}),
        metrics: { ...found.metrics, latencyMs: latency, ttftMs: latency, contextTokens, generator },
      }
    } catch (e) {
      await giveBack()
      throw e
    } finally {
      release()
    }
  }

  /**
   * Streams an answer: its sources, the text piece by piece, then the figures (answerEvents). Every
   * refusal that can be known before the first event (not ready, unknown pins, saturation, model
   * server down, the plan's cap) is thrown instead, so that it is an ordinary error response; the
   * question is counted as `chat` counts it once its first event is ready.
   */
  async chatStream(
    principal: Principal,
    corpusId: string,
    req: Req,
    origin: QuestionOrigin = 'person',
    counted: Counted = 'take',
  ): Promise<AsyncGenerator<ChatEvent>> {
    const input = await this.prepare(principal.workspaceId, corpusId, req)
    const giveBack = await this.allowance.take(principal.workspaceId, counted)
    let release: (() => void) | null = null
    const done = () => {
      release?.()
      release = null
    }
    try {
      release = await this.slot()
      const t0 = performance.now()
      const asked = await this.d.engine.ask(corpusId, input)
      const { found, ...opened } = await openPieces(
        this.d.llm,
        (e) => this.fallbackFor(e),
        asked,
        req.max_tokens,
      )
      const ttftMs = round(performance.now() - t0)
      this.questions.answered(principal, corpusId, found, origin)
      const contextTokens = estimateTokens(
        opened.messages.length > 0
          ? opened.messages.map((m) => m.content).join('\n')
          : found.sources.map((s) => s.snippet).join('\n'),
      )
      return answerEvents({ found, opened, t0, ttftMs, contextTokens, release: done })
    } catch (e) {
      await giveBack()
      done()
      throw e
    }
  }

  /** Generates and stores the catalog description of a ready base (null when no sentence came out). */
  async describe(
    principal: Principal,
    corpusId: string,
  ): Promise<{ id: string; description: string | null }> {
    const corpus = await this.d.corpora.get(principal.workspaceId, corpusId)
    if (corpus.status !== 'ready') throw fail('corpus_not_ready')
    const release = await this.slot()
    try {
      return await describeBase({ ...this.d, fallbackFor: (e) => this.fallbackFor(e) }, principal, corpus)
    } finally {
      release()
    }
  }

  /** Records a rating of an answer. */
  async feedback(
    principal: Principal,
    corpusId: string,
    req: Static<typeof FeedbackReq>,
  ): Promise<{ id: string; status: 'recorded' }> {
    await this.d.corpora.get(principal.workspaceId, corpusId)
    const id = newId(this.d.random, 'fb')
    const row = {
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
    }
    await this.d.store.unit(() => this.repo.insertFeedback(row))
    return { id, status: 'recorded' }
  }

  /** Ratings given in a workspace from `fromMs` to `toMs` (exclusive), up and down, by base and UTC day. */
  feedbackCounts(workspaceId: string, fromMs: number, toMs: number): Promise<FeedbackCount[]> {
    return this.repo.feedbackCounts(workspaceId, fromMs, toMs)
  }
}
