import type { Database } from 'bun:sqlite'
import type { Db } from '../../platform/db/db'
import { objectKey } from '../../platform/storage/keys'
import { type CartStore, EngineCarts } from './engine.carts'
import { EngineRepo, type SectionRow } from './engine.repo'
import { type Embedder, EngineVectors, type SectionVectors } from './engine.vectors'
import { type AskExplain, type AskInput, type AskResult, askBase } from './lib/ask'
import type { WarmCache } from './lib/cache'
import { compileCartridge, type WarmCartridge } from './lib/cartridge'
import { contentKey, encodeCartridge } from './lib/codec'
import type { CompiledSection } from './lib/compile-threads'
import { fitCartridge } from './lib/fit'
import { prepareHypernyms } from './lib/hypernyms'
import { passageInputs } from './lib/passages'
import { prepareStaticVectors } from './lib/static-vectors'
import { prepareSynonyms } from './lib/variants'

export type { CartStore } from './engine.carts'
export type { Embedder, SectionVectors } from './engine.vectors'
export { type AskInput, type AskMetrics, type AskResult, NO_ANSWER, type Source } from './lib/ask'
/** How an answer is streamed, piece by piece (the answers feature streams through it). */
export { streamAnswer } from './lib/stream'

/** What the engine needs: the database, the object store, a warm-copy budget and a timer. */
export interface EngineDeps {
  db: Db | Database
  store: CartStore
  /** Memory budget of warm cartridges, in bytes. */
  cacheBytes: number
  /** A monotonic millisecond timer for the latency in `metrics` (performance.now by default). */
  now?: () => number
  /**
   * Compiles a section's text elsewhere (CompileThreads): its encoded cartridge and index rows, and
   * the passages' vectors when the embedder is the built-in one. By default cartridges are compiled
   * in process. Either way the results are compileSection's.
   */
  compile?: (text: string) => Promise<CompiledSection>
  /**
   * The model that embeds passages for re-ranking candidates by meaning: an embeddings server (its
   * vectors come after onboarding, from embedSections) or the built-in vectors (made as passages are
   * indexed, embedNow); none when not given.
   */
  embedder?: Embedder | null
}

/** A section compiled: its cartridge's bytes and index rows, and the warm copy when compiled in process. */
export interface PreparedSection extends CompiledSection {
  cart: WarmCartridge | null
}

/** A section to onboard: its ids, the source fields, and its text. */
export interface SectionInput {
  workspaceId: string
  baseId: string
  documentId: string
  sectionId: string
  title: string
  filename: string
  text: string
}

/** What onboarding a section produced. */
export interface OnboardResult {
  cartKey: string
  cartBytes: number
  passages: number
  sentences: number
}

/**
 * The answer engine: onboarding (chunk, index, compile the cartridge), both strategies, and removal.
 * One instance per process: it keeps each base's list of warm cartridges in memory and invalidates
 * it on every change it makes. Its tables are its own: other features ask it, never its repo.
 */
export class Engine {
  private readonly repo: EngineRepo
  private readonly carts: EngineCarts
  private readonly embeddings: EngineVectors
  private readonly now: () => number
  /** The warm cartridges (the operator's status reads their bytes and count). */
  readonly cache: WarmCache<WarmCartridge>
  /** Passage vectors of the configured model by section, warm for cart (a quarter of the cartridges' budget). */
  readonly vectors: WarmCache<SectionVectors>

  constructor(private readonly deps: EngineDeps) {
    this.repo = new EngineRepo('$client' in deps.db ? deps.db.$client : deps.db)
    this.carts = new EngineCarts(this.repo, deps.store, deps.cacheBytes)
    this.embeddings = new EngineVectors(this.repo.vectors, deps.embedder ?? null, deps.cacheBytes / 4)
    this.cache = this.carts.cache
    this.vectors = this.embeddings.warm
    this.now = deps.now ?? (() => performance.now())
  }

  /**
   * Compiles a section's cartridge. Called ahead of onboardSection, it lets the compile of one section
   * run on a compile thread while the one before is being indexed.
   */
  async prepareSection(text: string): Promise<PreparedSection> {
    if (this.deps.compile) return { ...(await this.deps.compile(text)), cart: null }
    const cart = compileCartridge(text, { fit: fitCartridge })
    return { bytes: encodeCartridge(cart), inputs: passageInputs(cart), cart }
  }

  /** Onboards one section (onboardSections of one), compiling it unless it was prepared. */
  async onboardSection(input: SectionInput, prepared?: Promise<PreparedSection>): Promise<OnboardResult> {
    const [one] = await this.onboardSections([input], [prepared ?? this.prepareSection(input.text)])
    if (one instanceof Error) throw one
    return one!
  }

  /**
   * Onboards sections together: cartridges written side by side (each write waits for the disk),
   * then passages indexed in one transaction; each section's result or error (the others go on). A
   * cartridge compiled in process is kept warm; one from a thread loads in warmBase or when asked.
   */
  async onboardSections(
    inputs: SectionInput[],
    prepared: Promise<PreparedSection>[],
  ): Promise<(OnboardResult | Error)[]> {
    const stored = await Promise.all(
      inputs.map(async (input, i) => {
        try {
          const section = await prepared[i]!
          const cartKey = objectKey(input.workspaceId, 'carts', `${contentKey(input.text)}.cart`)
          await this.storeCart(cartKey, section.bytes)
          return { section, cartKey }
        } catch (e) {
          return e as Error
        }
      }),
    )
    const previous: SectionRow[] = [] // rows replaced by another cartridge
    const all = () => stored.map((s, i) => this.index(inputs[i]!, s, previous))
    const out = this.repo.client.transaction(all)()
    // A replaced cartridge leaves the store once no section uses it (drop checks).
    for (const row of previous) await this.carts.drop(row.cart_key)
    return out
  }

  /** Writes a cartridge unless its key already holds these very bytes (a write waits for the disk twice). */
  private async storeCart(cartKey: string, bytes: Uint8Array): Promise<void> {
    const held = await this.deps.store.getBytes(cartKey)
    if (held && Buffer.from(held).equals(bytes)) return
    await this.deps.store.put(cartKey, bytes, { contentType: 'application/octet-stream' })
  }

  /** Indexes a stored section in onboardSections' transaction; records the row it replaced. */
  private index(
    input: SectionInput,
    stored: { section: PreparedSection; cartKey: string } | Error,
    previous: SectionRow[],
  ): OnboardResult | Error {
    if (stored instanceof Error) return stored
    const { section, cartKey } = stored
    const { bytes, inputs, cart, vectors: made } = section
    try {
      const vectors = this.embeddings.forIndexing(
        inputs.map((p) => p.text),
        made,
      )
      // putSection's own transaction nests as a savepoint: a failing section rolls back alone.
      const row = this.repo.putSection(
        {
          section_id: input.sectionId,
          base_id: input.baseId,
          document_id: input.documentId,
          title: input.title,
          filename: input.filename,
          cart_key: cartKey,
          n_passages: inputs.length,
          cart_bytes: bytes.length,
        },
        inputs,
        vectors,
      )
      if (row && row.cart_key !== cartKey) previous.push(row)
    } catch (e) {
      return e as Error
    }
    if (cart) this.cache.set(cartKey, cart)
    this.embeddings.forget(input.sectionId)
    this.carts.forgetBase(input.baseId)
    return {
      cartKey,
      cartBytes: bytes.length,
      passages: inputs.length,
      sentences: inputs.reduce((n, p) => n + p.sents.length / 2, 0),
    }
  }

  /** Removes a section from the index and its cartridge when nothing else uses it. */
  async removeSection(sectionId: string): Promise<void> {
    const row = this.repo.removeSection(sectionId)
    this.embeddings.forget(sectionId)
    if (!row) return
    this.carts.forgetBase(row.base_id)
    await this.carts.drop(row.cart_key)
  }

  /** Removes every section of a document. */
  async removeDocument(documentId: string): Promise<void> {
    for (const s of this.repo.documentSections(documentId)) await this.removeSection(s.section_id)
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
    return this.repo.sections(baseId).map((s) => ({ sectionId: s.section_id, cartKey: s.cart_key }))
  }

  /** The sections indexed for a document, with the cartridge each uses. */
  sectionsOfDocument(documentId: string): { sectionId: string; cartKey: string }[] {
    return this.repo
      .documentSections(documentId)
      .map((s) => ({ sectionId: s.section_id, cartKey: s.cart_key }))
  }

  /** Removes every section of a base, then the base's index key. */
  async removeBase(baseId: string): Promise<void> {
    for (const s of this.repo.sections(baseId)) await this.removeSection(s.section_id)
    this.repo.dropBase(baseId)
    this.carts.forgetBase(baseId)
  }

  /** Loads a base's cartridges (those compiled on a thread) warm now, not on the first question after a run. */
  async warmBase(baseId: string): Promise<void> {
    this.prepare()
    await this.carts.set(baseId)
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
   * One-off start-up work that would otherwise fall on the first question (the WordNet tables, a built-in
   * model), once the server holds a base: one with none stays small (warmBase prepares after a run).
   */
  prepare(): void {
    if (!this.repo.hasSections()) return
    prepareSynonyms()
    prepareHypernyms()
    // The support check reads the built-in vectors whatever re-ranks by meaning.
    prepareStaticVectors()
    this.deps.embedder?.prepare?.()
  }

  /**
   * Answers a question from a base with the chosen strategy (cart by default). When none of the
   * passages the answer may quote supports an answer (support.ts), the answer says so instead.
   * `explain`, when given, receives the support signals of the passage that decided (benchmarks fit
   * the model on them) and the answer that would be composed without the check.
   */
  ask(baseId: string, input: AskInput, explain?: AskExplain): Promise<AskResult> {
    const ctx = {
      index: this.repo,
      carts: (id: string) => this.carts.set(id),
      meaning: (question: string) => this.embeddings.meaning(question),
      now: this.now,
    }
    return askBase(ctx, baseId, input, explain)
  }
}
