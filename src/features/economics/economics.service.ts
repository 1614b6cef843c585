import type { Static } from '@sinclair/typebox'
import type { Principal } from '../../platform/auth/principal'
import type { Random } from '../../platform/crypto/random'
import { fail } from '../../platform/errors/errors'
import type { ObjectStore } from '../../platform/storage/object-store'
import type { ChatReq } from '../answers/answers.schemas'
import type { AnswersService, ChatResult, Counted } from '../answers/answers.service'
import type { CorporaService, CorpusRow } from '../corpora/corpora.service'
import { type OnboardingService, RUN_KIND } from '../onboarding/onboarding.service'
import type { CompareEvent, Comparison } from './economics.types'
import {
  breakEvenQueries,
  money,
  onboardingCost,
  type QueryCost,
  type QueryWork,
  queryCost,
  type RateCard,
  round,
  type Strategy,
  tokensOfChars,
} from './lib/cost'
import { leaves, processCpuMs, trainCpuMs } from './lib/measure'
import { sampleQueries } from './lib/sample'

export type { CompareEvent, CompareRun, Comparison } from './economics.types'
export type { QueryCost, RateCard, Strategy } from './lib/cost'
export { type CartridgeSource, cartridgeFootprint } from './lib/footprint'

/** What the base's cartridges occupy: how many distinct ones, and their bytes when warm. */
export interface Footprint {
  cartridges: number
  warmBytes: number
}

/** Everything the feature works from; the answer engine is reached through the answers service. */
export interface EconomicsDeps {
  random: Random
  corpora: CorporaService
  answers: Pick<AnswersService, 'chat' | 'chatStream' | 'takeQuestion'>
  onboarding: Pick<OnboardingService, 'jobs'>
  objects: Pick<ObjectStore, 'getText'>
  footprint: (corpusId: string) => Promise<Footprint>
  rates: RateCard
  /** Monotonic milliseconds for latencies (performance.now by default). */
  now?: () => number
  /** Process CPU meter in milliseconds (process.cpuUsage by default). */
  cpuMs?: () => number
}

type Chat = Static<typeof ChatReq>

/** Measured work of a strategy, averaged over the economics probe. */
interface Measured {
  queries: number
  generator: string
  cart: Omit<QueryWork, 'warmBytes'>
  rag: Omit<QueryWork, 'warmBytes'>
}

/** Questions the economics probe measures per strategy (after one warm-up each). */
const PROBE_QUERIES = 3
/** Probe results kept (one per base state). */
const PROBE_CACHE = 256

/** Compare and economics: what each strategy costs on the same questions. */
export class EconomicsService {
  /** Monotonic milliseconds. */
  readonly now: () => number
  /** Process CPU time in milliseconds. */
  readonly cpu: () => number
  private readonly probes = new Map<string, Measured>()

  constructor(private readonly d: EconomicsDeps) {
    this.now = d.now ?? (() => performance.now())
    this.cpu = d.cpuMs ?? processCpuMs
  }

  /** The base, when it can answer (the same rule as chat); 404 for another tenant, 409 otherwise. */
  async servable(workspaceId: string, corpusId: string): Promise<CorpusRow> {
    const corpus = await this.d.corpora.get(workspaceId, corpusId)
    const ok = corpus.status === 'ready' || (corpus.status === 'training' && corpus.documents_ready > 0)
    if (!ok) throw fail('corpus_not_ready')
    return corpus
  }

  /**
   * Runs one question through `answers.chat` and measures the CPU time it took. A compare has taken
   * its one question of the plan already; the economics probe's questions are the server's, exempt.
   */
  private async measure(
    principal: Principal,
    corpusId: string,
    req: Chat,
    strategy: Strategy,
    counted: Counted,
  ) {
    const cpu0 = this.cpu()
    const t0 = this.now()
    // Measuring, not asking: usage counts these apart from people's questions.
    const result = await this.d.answers.chat(principal, corpusId, { ...req, strategy }, 'compare', counted)
    // Process CPU includes other requests served meanwhile; a query cannot use more than its wall time.
    const cpuMs = Math.min(this.cpu() - cpu0, this.now() - t0)
    return { result, work: workOf(result, cpuMs) }
  }

  /** The rate card's cost of measured work (cart pays for the warm cartridges). */
  private cost(
    work: Omit<QueryWork, 'warmBytes'>,
    strategy: Strategy,
    fp: Footprint,
    qpm: number,
  ): QueryCost {
    return queryCost({ ...work, warmBytes: strategy === 'cart' ? fp.warmBytes : 0 }, this.d.rates, qpm)
  }

  /**
   * Runs the same question through the chosen strategies and prices each: one question of the
   * plan's `queries_per_month` however many strategies run, given back when none was answered.
   */
  async compare(
    principal: Principal,
    corpusId: string,
    req: Chat,
    side: 'both' | Strategy,
    qpm: number,
  ): Promise<Comparison> {
    await this.servable(principal.workspaceId, corpusId)
    const keys: Strategy[] = side === 'both' ? ['cart', 'rag'] : [side]
    const measured: { key: Strategy; result: ChatResult; work: Omit<QueryWork, 'warmBytes'> }[] = []
    const giveBack = await this.d.answers.takeQuestion(principal.workspaceId)
    try {
      for (const key of keys) {
        measured.push({ key, ...(await this.measure(principal, corpusId, req, key, 'taken')) })
      }
    } catch (e) {
      if (measured.length === 0) await giveBack()
      throw e
    }
    const fp = await this.d.footprint(corpusId)
    return {
      runs: measured.map(({ key, result, work }) => ({
        key,
        result,
        cpuMs: work.cpuMs,
        cost: this.cost(work, key, fp, qpm),
      })),
      queriesPerMonth: qpm,
      side,
      generator: measured.some((r) => r.work.modelServer) ? 'llm' : 'extractive',
      rates: this.d.rates,
    }
  }

  /**
   * Streams one strategy's answer: its sources and text, then `summary` with the measured figures and
   * the cost per query. Refusals known before the first event are thrown, as ordinary errors. One
   * question of the plan's `queries_per_month` per request, taken as chat takes it.
   */
  async compareStream(
    principal: Principal,
    corpusId: string,
    req: Chat,
    side: Strategy,
    qpm: number,
  ): Promise<AsyncGenerator<CompareEvent>> {
    await this.servable(principal.workspaceId, corpusId)
    const cpu0 = this.cpu()
    const t0 = this.now()
    const inner = await this.d.answers.chatStream(principal, corpusId, { ...req, strategy: side }, 'compare')
    const self = this
    async function* events(): AsyncGenerator<CompareEvent> {
      let answer = ''
      for await (const ev of inner) {
        if (ev.type !== 'done') {
          if (ev.type === 'delta') answer += ev.text
          yield ev
          continue
        }
        const cpuMs = Math.min(self.cpu() - cpu0, self.now() - t0)
        const work = {
          cpuMs,
          contextTokens: ev.metrics.contextTokens,
          outputTokens: tokensOfChars(answer.length),
          modelServer: ev.metrics.generator === 'llm',
        }
        const cost = self.cost(work, side, await self.d.footprint(corpusId), qpm)
        yield { type: 'summary', key: side, metrics: ev.metrics, cpuMs, cost, queriesPerMonth: qpm }
        return
      }
      throw new Error('The answer stream ended early.')
    }
    return events()
  }

  /**
   * What serving the base costs with each strategy: measured per-query work (a small probe of
   * questions drawn from the base, cached while the base is unchanged) priced on the rate card,
   * the one-off onboarding cost, and the break-even number of queries.
   */
  async economics(principal: Principal, corpusId: string, qpm: number) {
    const corpus = await this.servable(principal.workspaceId, corpusId)
    const runs = await this.d.onboarding.jobs(principal.workspaceId, corpusId)
    // Any run or document change gives the base another state, measured afresh.
    const state = [corpus.updated_at, corpus.n_documents, corpus.documents_ready, runs.length].join(':')
    const measured = await this.probe(principal, corpus, state)
    const fp = await this.d.footprint(corpusId)
    const cart = this.cost(measured.cart, 'cart', fp, qpm)
    const rag = this.cost(measured.rag, 'rag', fp, qpm)
    const trainMs = trainCpuMs(runs, RUN_KIND)
    const trainCost = onboardingCost(trainMs, this.d.rates)
    const texts = leaves(await this.d.corpora.documentRows(corpusId))
    const shown = (w: Omit<QueryWork, 'warmBytes'>) => ({
      cpu_ms: round(w.cpuMs, 3),
      context_tokens: round(w.contextTokens, 1),
      output_tokens: round(w.outputTokens, 1),
    })
    return {
      trained: corpus.status === 'ready',
      n_cartridges: fp.cartridges,
      corpus_tokens: texts.reduce((a, r) => a + tokensOfChars(r.text_chars), 0),
      train_seconds: round(trainMs / 1000, 6),
      train_cost: money(trainCost),
      queries_per_month: qpm,
      per_query: { cart: money(cart.total), rag: money(rag.total) },
      per_month: { cart: money(cart.total * qpm), rag: money(rag.total * qpm) },
      breakeven_vs_rag: breakEvenQueries(trainCost, rag.total, cart.total),
      rate_card: this.d.rates,
      measured: {
        queries: measured.queries,
        generator: measured.generator,
        warm_bytes: fp.warmBytes,
        cart: shown(measured.cart),
        rag: shown(measured.rag),
      },
    }
  }

  /** Mean measured work per strategy over a few questions from the base (after a warm-up each). */
  private async probe(principal: Principal, corpus: CorpusRow, state: string): Promise<Measured> {
    const key = `${corpus.id}:${state}`
    const cached = this.probes.get(key)
    if (cached) return cached
    const questions = await this.sample(corpus, PROBE_QUERIES)
    const out: Measured = { queries: questions.length, generator: 'extractive', cart: zero(), rag: zero() }
    for (const strategy of ['cart', 'rag'] as const) {
      await this.measure(principal, corpus.id, { question: questions[0]! }, strategy, 'exempt')
      const sum = zero()
      for (const question of questions) {
        const { work } = await this.measure(principal, corpus.id, { question }, strategy, 'exempt')
        sum.cpuMs += work.cpuMs / questions.length
        sum.contextTokens += work.contextTokens / questions.length
        sum.outputTokens += work.outputTokens / questions.length
        sum.modelServer ||= work.modelServer
      }
      out[strategy] = sum
      if (sum.modelServer) out.generator = 'llm'
    }
    if (this.probes.size >= PROBE_CACHE) this.probes.delete(this.probes.keys().next().value!)
    this.probes.set(key, out)
    return out
  }

  /** Up to `n` questions drawn from the base's own text (its name when it has none). */
  async sample(corpus: CorpusRow, n: number): Promise<string[]> {
    const rows = leaves(await this.d.corpora.documentRows(corpus.id)).filter(
      (r) => r.status === 'ready' && r.text_key !== null,
    )
    const texts: string[] = []
    // Sixteen leaves spread over the base are enough to draw from, and bound what is read.
    const step = Math.max(1, Math.ceil(rows.length / 16))
    for (const row of rows.filter((_, i) => i % step === 0)) {
      const all = await this.d.objects.getText(row.text_key!)
      if (all === null) continue
      texts.push(
        row.text_offset === null ? all : all.slice(row.text_offset, row.text_offset + row.text_chars),
      )
    }
    const drawn = sampleQueries(texts, n, this.d.random)
    return drawn.length > 0 ? drawn : [corpus.name]
  }
}

/** The measured work of an answered question (warm memory is added per strategy by the caller). */
function workOf(result: ChatResult, cpuMs: number): Omit<QueryWork, 'warmBytes'> {
  return {
    cpuMs,
    contextTokens: result.metrics.contextTokens,
    outputTokens: tokensOfChars(result.answer.length),
    modelServer: result.metrics.generator === 'llm',
  }
}

/** No work yet. */
function zero(): Omit<QueryWork, 'warmBytes'> {
  return { cpuMs: 0, contextTokens: 0, outputTokens: 0, modelServer: false }
}
