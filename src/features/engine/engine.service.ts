import { exclusiveOn } from '../../platform/db/store'
import {
  compileCartridge,
  encodeCartridge,
  fitCartridge,
  type IndexedSection,
  indexSection,
  passageInputs,
  type WarmCartridge,
} from './cart/index'
import { splitWarmBudget, type WarmCache } from './common/index'
import { type AskExplain, type AskInput, askBase } from './compose/index'
import { CartUnavailable, EngineCarts } from './engine.carts'
import { type AskResult, placeSources } from './engine.citations'
import { CitationsRepo } from './engine.citations.repo'
import type { EngineDeps } from './engine.deps'
import { EngineEncodings } from './engine.encodings'
import { tokenPrefix } from './engine.fts.repo'
import {
  buildDeferred,
  type DeferredStep,
  indexSections,
  type OnboardParts,
  type OnboardResult,
  type PreparedSection,
  type SectionInput,
  type TextOf,
} from './engine.onboard'
import { PassageCache } from './engine.passages'
import { Postings } from './engine.postings'
import { CartBuilds } from './engine.repairs'
import { EngineRepo } from './engine.repo'
import { byBase, SharedIndex } from './engine.sync'
import { TableRepo } from './engine.tables.repo'
import { EngineVectors, type SectionVectors } from './engine.vectors'
import { WordTables } from './engine.word-tables'
import { encodePassageWords, scanPassageWords } from './rank/index'

export type { Chunking, IndexedSection } from './cart/index'
/** What the answers feature uses of an answer: its input and metrics, the no-answer text, its streaming. */
export { type AskInput, type AskMetrics, NO_ANSWER, streamAnswer } from './compose/index'
export type { CartStore } from './engine.carts'
export type { AskResult, SectionSpan, Source, SourceLocator, SourcePlace } from './engine.citations'
export type { EngineDeps } from './engine.deps'
export type { DeferredStep, OnboardResult, PreparedSection, SectionInput } from './engine.onboard'
export type { Embedder, SectionVectors } from './engine.vectors'

/**
 * The answer engine: onboarding (chunk, index, compile the cartridge), both strategies, and removal.
 * One instance per process: it keeps each base's list of warm cartridges in memory and invalidates
 * it on every change it makes. Its tables are its own: other features ask it, never its repo.
 */
export class Engine {
  private readonly repo: EngineRepo
  /** Where rag reads the rows of a table a question asks about. */
  private readonly tables: TableRepo
  private readonly carts: EngineCarts
  /** Where cited passages start in their sections (sources are placed in their documents from it). */
  private readonly citations: CitationsRepo
  private readonly embeddings: EngineVectors
  /** What onboarding writes through (engine.onboard.ts). */
  private readonly parts: OnboardParts
  /** Sections waiting for their deferred build, by base (cart answers by rag until none does). */
  readonly builds: CartBuilds
  private readonly now: () => number
  private readonly words: WordTables
  readonly encodings: EngineEncodings
  /** The warm cartridges (the operator's status reads their bytes and count). */
  readonly cache: WarmCache<WarmCartridge>
  /** Passage vectors of the configured model by section, warm for cart (a sixteenth of the warm caches' budget). */
  readonly vectors: WarmCache<SectionVectors>
  /** The published index every replica answers from, when shared: questions and writes go through it. */
  readonly shared: SharedIndex | null

  constructor(private readonly deps: EngineDeps) {
    const budget = splitWarmBudget(deps.cacheBytes)
    const caches = [new Postings({ maxBytes: budget.postings }), new PassageCache(budget.passages)] as const
    this.repo = new EngineRepo('$client' in deps.db ? deps.db.$client : deps.db, ...caches)
    this.tables = new TableRepo(this.repo.client)
    this.carts = new EngineCarts(this.repo, deps.store, budget.carts)
    this.citations = new CitationsRepo(this.repo.client)
    this.embeddings = new EngineVectors(this.repo.vectors, deps.embedder ?? null, budget.vectors, caches[1])
    this.cache = this.carts.cache
    this.vectors = this.embeddings.warm
    const { repo, carts, embeddings } = this
    this.parts = { repo, builds: carts.builds, store: deps.store, carts, embeddings }
    this.builds = new CartBuilds(carts.builds, carts, deps.store)
    this.now = deps.now ?? (() => performance.now())
    this.words = new WordTables(deps.synonyms)
    this.encodings = new EngineEncodings(this.repo.vectors, deps.encoder ?? null, deps.encoderWait)
    // A base's rows replaced from a publication: its cartridge lists and its sections' vectors go.
    const replaced = (baseId: string, sectionIds: string[]) => {
      this.carts.forgetBase(baseId)
      for (const id of sectionIds) this.embeddings.forget(id)
    }
    this.shared = deps.shared ? new SharedIndex(this.repo, { ...deps.shared, replaced }) : null
  }

  /** Runs writes to a base's index: on a shared index under its lease, then published (SharedIndex.write). */
  writeBase<T>(
    baseId: string,
    workspaceId: string | null,
    work: () => Promise<T>,
    erase = false,
  ): Promise<T> {
    return this.shared ? this.shared.write(baseId, workspaceId, work, { erase }) : work()
  }
  /** Whether each write to a base's index is also published for other replicas (a shared index): writes cost more each. */
  get writesPublished(): boolean {
    return this.shared !== null
  }
  /** Brings a base's rows to its published generation before they are read (a no-op when not shared). */
  async syncBase(baseId: string): Promise<void> {
    await this.shared?.ensure(baseId)
  }

  /** Compiles a section's cartridge (on a compile thread when there are some). */
  async prepareSection(text: string): Promise<PreparedSection> {
    if (this.deps.compile) return { ...(await this.deps.compile(text)), cart: null }
    const cart = compileCartridge(text, { fit: fitCartridge })
    const inputs = passageInputs(cart)
    const words = inputs.map((p) => encodePassageWords(scanPassageWords(p.text, p.sents)))
    return { bytes: encodeCartridge(cart), inputs, words, cart }
  }

  /** Onboards one section whole: indexed, then its cartridge built (benchmarks and tests). */
  async onboardSection(input: SectionInput): Promise<OnboardResult> {
    const [one] = await this.indexSections([input])
    if (one instanceof Error) throw one
    await this.buildDeferred(input.baseId, async (id) => (id === input.sectionId ? input.text : null))
    const row = this.carts.builds.indexed([input.sectionId]).get(input.sectionId)!
    return { ...one!, cartKey: row.cartKey, cartBytes: row.cartBytes }
  }

  /** Indexes sections' text for rag (engine.onboard.ts; `chunked`: as chunkSections gave them). */
  indexSections(inputs: SectionInput[], chunked?: IndexedSection[]): Promise<(OnboardResult | Error)[]> {
    const [first] = inputs
    // A run's group is of one base; sections of several (none today) are indexed base by base.
    if (!first || !this.shared || inputs.every((i) => i.baseId === first.baseId))
      return this.writeBase(first?.baseId ?? '', first?.workspaceId ?? null, () =>
        indexSections(this.parts, inputs, chunked),
      )
    return byBase(inputs, chunked, (some, chunks) => this.indexSections(some, chunks))
  }
  /** Sections' texts chunked for indexSections, on a compile thread when there are some; with their base's token prefix once it has a key. */
  chunkSections(texts: string[], baseId?: string): import('./cart/index').Chunking {
    const prefix = baseId === undefined ? '' : tokenPrefix(this.parts.repo.baseKey(baseId))
    if (this.deps.chunk) return this.deps.chunk(texts, prefix)
    return new Promise((resolve) => resolve(texts.map((text) => indexSection(text, prefix))))
  }

  /** A step of a base's deferred build (engine.onboard.ts): what questions read but rag answers without. */
  buildDeferred(baseId: string, textOf: TextOf): Promise<DeferredStep> {
    const build = () => buildDeferred(this.parts, baseId, textOf, (text) => this.prepareSection(text))
    return this.writeBase(baseId, null, build)
  }

  /** Removes a section from the index and its cartridge when nothing else uses it. */
  async removeSection(sectionId: string): Promise<void> {
    // On the units' lock: never inside another flow's unit on the same connection (SQLite mode).
    const row = await exclusiveOn(this.repo.client, () => this.repo.removeSection(sectionId))
    this.embeddings.forget(sectionId)
    if (!row) return
    this.carts.forgetBase(row.baseId)
    await this.carts.drop(row.cartKey)
  }
  /** Removes every section of a document of the base. */
  async removeDocument(baseId: string, documentId: string): Promise<void> {
    for (const s of this.repo.documentSections(baseId, documentId)) await this.removeSection(s.sectionId)
  }
  /** Removes sections of a base (a deleted document's), then publishes it whole: no published file holds them after. */
  removeSections(baseId: string, workspaceId: string, sectionIds: string[]): Promise<void> {
    const remove = async () => {
      for (const id of sectionIds) await this.removeSection(id)
    }
    return this.writeBase(baseId, workspaceId, remove, true)
  }

  /** Bytes of the index over a base's cartridges the cart search keeps, 0 until a question builds it. */
  routeBytes(baseId: string): number {
    return this.carts.routeBytes(baseId)
  }

  /** Bytes of the cartridges a base's sections use in the store, each counted once. */
  cartBytes(baseId: string): number {
    return this.repo.cartBytes(baseId)
  }

  /** Learns the size of cartridges indexed before sizes were recorded (EngineCarts.measure); returns how many. */
  measureCarts(sizeOf: (key: string) => Promise<number | null>): Promise<number> {
    return this.carts.measure(sizeOf)
  }

  /** The sections indexed for a base, with the cartridge each uses. */
  sectionsOf(baseId: string): { sectionId: string; cartKey: string }[] {
    return this.repo.sections(baseId).map((s) => ({ sectionId: s.sectionId, cartKey: s.cartKey }))
  }

  /** The sections indexed for a document of the base, with the cartridge each uses. */
  sectionsOfDocument(baseId: string, documentId: string): { sectionId: string; cartKey: string }[] {
    return this.repo
      .documentSections(baseId, documentId)
      .map(({ sectionId, cartKey }) => ({ sectionId, cartKey }))
  }

  /** Removes every section of a base, then the base's index key. */
  async removeBase(baseId: string): Promise<void> {
    for (const s of this.repo.sections(baseId)) await this.removeSection(s.sectionId)
    await exclusiveOn(this.repo.client, () => this.repo.dropBase(baseId))
    this.carts.forgetBase(baseId)
    await this.shared?.remove(baseId)
  }

  /** Loads a base's cartridges warm now, not on the first question after a run; the word tables too (WordTables). */
  async warmBase(baseId: string): Promise<void> {
    this.words.startElsewhere()
    await this.syncBase(baseId)
    // Not waiting for an embeddings server (the reference texts): a run does not depend on it.
    void this.prepare()
    // A base too large for the budget is answered by rag: nothing of it to warm.
    if (this.carts.fits(baseId)) await this.carts.set(baseId)
  }

  /** The model that embeds passages, or null when there is none (no server, built-in vectors off). */
  get embeddingModel(): string | null {
    return this.embeddings.model
  }

  /**
   * Embeds the passages of these sections that have no vector from the configured model yet and
   * stores the vectors; returns how many were stored. A passage that changed or left while its
   * embedding was being made gets none. Rejects (LlmUnavailableError) when the server fails.
   */
  embedSections(sectionIds: string[]): Promise<number> {
    return this.embeddings.embedSections(sectionIds)
  }

  /** Whether passages are embedded after onboarding, by an embed job (an embeddings server), not as they are indexed. */
  get embedsAfterOnboarding(): boolean {
    return this.embeddings.afterOnboarding
  }

  /** Bases with passages that have no vector from the configured model (none without an embedder). */
  basesWithoutVectors(): string[] {
    return this.embeddings.basesWithoutVectors()
  }

  /**
   * Readies the engine as a base's upload begins and as a run starts: the compile thread starts. The
   * word tables follow the run (warmBase): read before, they held up the run's first groups there.
   */
  warmUp(): void {
    this.deps.warmCompile?.()
  }

  /**
   * One-off start-up work that would otherwise fall on the first question (the word tables, a built-in
   * model, an embeddings server's vectors of the support check's reference texts), once the server
   * holds a base: one with none stays small (warmBase prepares after a run).
   */
  async prepare(): Promise<void> {
    if (!this.repo.hasSections()) return
    await this.words.load()
    this.deps.embedder?.prepare?.()
    return this.embeddings.prepare()
  }

  /**
   * Answers a question from a base with the chosen strategy (cart by default). When none of the
   * passages the answer may quote supports an answer (support.ts), the answer says so instead.
   * `explain`, when given, receives the support signals of the passage that decided (benchmarks fit
   * the model on them) and the answer that would be composed without the check.
   */
  async ask(baseId: string, input: AskInput, explain?: AskExplain): Promise<AskResult> {
    await this.syncBase(baseId)
    await this.words.ready() // a synonym table a compile thread builds: waited for, not built here too
    // Cart reads every cartridge of the base: one whose cartridges exceed their budget answers by rag
    // (the result says so), so the budget holds.
    if ((input.strategy ?? 'cart') === 'cart' && !this.carts.fits(baseId))
      input = { ...input, strategy: 'rag' }
    const ctx = {
      index: this.repo,
      carts: (id: string) => this.carts.set(id),
      meaning: (question: string) => this.embeddings.meaning(question),
      encoder: this.encodings.forBase(baseId),
      tables: this.tables,
      now: this.now,
    }
    // Until its cartridges are built (the deferred build), a base answers cart questions by rag too.
    if ((input.strategy ?? 'cart') === 'cart' && !this.carts.ready(baseId))
      input = { ...input, strategy: 'rag' }
    // A cartridge missing or damaged in the store: this question by rag (it says so), its build queued.
    const result = await askBase(ctx, baseId, input, explain).catch((e) => {
      if (!(e instanceof CartUnavailable)) throw e
      return askBase(ctx, baseId, { ...input, strategy: 'rag' }, explain)
    })
    return placeSources(this.citations, this.deps.locate ?? null, baseId, result)
  }
}
