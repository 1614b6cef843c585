import type { Database } from 'bun:sqlite'
import { sha256Hex } from '../../platform/crypto/hash'
import type { Db } from '../../platform/db/db'
import { objectKey } from '../../platform/storage/keys'
import type { ObjectStore } from '../../platform/storage/object-store'
import { EngineRepo } from './engine.repo'
import { composeAnswer } from './lib/answer'
import { WarmCache } from './lib/cache'
import { compileCartridge, type WarmCartridge } from './lib/cartridge'
import { type CartEntry, searchCartridges } from './lib/cartsearch'
import { CARTRIDGE_VERSION, decodeCartridge, encodeCartridge } from './lib/codec'
import type { CompiledSection } from './lib/compile-threads'
import { condenseQuestion, type Turn } from './lib/condense'
import { fitCartridge } from './lib/fit'
import { prepareHypernyms } from './lib/hypernyms'
import { passageInputs } from './lib/passages'
import { AnswerType, planQuery } from './lib/query'
import { type SectionRef, searchIndex } from './lib/ragsearch'
import { type RankedPassage, withDocumentPrior, withMeaning, withTermFrequency } from './lib/rank'
import { prepareStaticVectors } from './lib/static-vectors'
import {
  SUPPORT_PASSAGES,
  SUPPORT_THRESHOLD,
  type SupportSignals,
  supportQuestion,
  supportScore,
  supportSignals,
  type TermEvidence,
} from './lib/support'
import { contentTerms } from './lib/text'
import { prepareSynonyms } from './lib/variants'

/** Where cartridges are kept durably: the object store's byte-level calls. */
/** How an answer is streamed, piece by piece (the answers feature streams through it). */
export { streamAnswer } from './lib/stream'

export type CartStore = Pick<ObjectStore, 'getBytes' | 'put' | 'delete'>

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

/** What re-ranking by meaning needs: a model (an embeddings server or the built-in vectors) and the weight of its similarity. */
export interface Embedder {
  readonly model: string
  /** Weight of a candidate's similarity to the question (a standard score among the candidates). */
  readonly weight: number
  /** Unit-length vectors, one per text; rejects when the server is down, slow or refuses. */
  embed(texts: string[]): Promise<Float32Array[]>
  /** Told when a question could not be embedded; it is answered without the re-rank. */
  onQuestionFailure?: (error: Error) => void
  /** Start-up work that would otherwise fall on the first text (loading a built-in model). */
  prepare?: () => void
  /**
   * An in-process model's synchronous path: passages are embedded as they are indexed, in the same
   * transaction, and no embed job follows the run.
   */
  embedNow?: (texts: string[]) => Float32Array[]
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

/** A question to a base, as ChatReq carries it. */
export interface AskInput {
  question: string
  k?: number
  history?: Turn[]
  docIds?: string[]
  strategy?: 'cart' | 'rag'
}

/** One source of an answer, in the wire shape. */
export interface Source {
  id: string
  title: string
  document_id: string
  filename: string
  snippet: string
  score: number
}

/** An answer, in ChatResp's wire shape. */
export interface AskResult {
  answer: string
  /**
   * False when the base holds no passage that supports an answer: `answer` then says so (NO_ANSWER,
   * no citation) and `sources` are only the closest passages found, not evidence.
   */
  answered: boolean
  strategy: 'cart' | 'rag'
  used_docs: string[]
  sources: Source[]
  condensed_q: string
  metrics: {
    latency_ms: number
    retrieval_ms: number
    strategy: 'cart' | 'rag'
    k: number
    /** The support model's probability that the best passage answers the question (support.ts). */
    support: number
  }
}

/** A section's passage vectors from one model, by ordinal (null where a passage has none yet). */
export interface SectionVectors {
  list: (Float32Array | null)[]
  /** Bytes this copy holds, for the warm cache's budget. */
  bytes: number
}

/** A section of a base as the cart strategy needs it, before its cartridge is warm. */
interface ManifestEntry {
  ref: SectionRef
  titleTerms: string[]
  cartKey: string
}

/** Said when the base holds nothing that answers the question (the answer is then `answered: false`). */
export const NO_ANSWER = 'The documents in this base do not answer this question.'

/** Candidates rag re-ranks from FTS5's BM25 order. */
const RAG_POOL = 40

/**
 * The answer engine: onboarding (chunk, index, compile the cartridge), both strategies, and removal.
 * One instance per process: it keeps each base's list of warm cartridges in memory and invalidates
 * it on every change it makes.
 */
export class Engine {
  readonly repo: EngineRepo
  readonly cache: WarmCache<WarmCartridge>
  /** Passage vectors of the configured model by section, warm for cart (a quarter of the cartridges' budget). */
  readonly vectors: WarmCache<SectionVectors>
  private readonly manifests = new Map<string, ManifestEntry[]>()
  private readonly now: () => number
  /** Cartridge keys measureCarts found missing from the store, not asked again. */
  private readonly missingCarts = new Set<string>()

  constructor(private readonly deps: EngineDeps) {
    this.repo = new EngineRepo('$client' in deps.db ? deps.db.$client : deps.db)
    this.cache = new WarmCache({ budgetBytes: deps.cacheBytes, sizeOf: (c) => c.bytes })
    this.vectors = new WarmCache({ budgetBytes: deps.cacheBytes / 4, sizeOf: (v) => v.bytes })
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

  /**
   * Onboards one section: compiles (or takes the prepareSection of its text) and stores its
   * cartridge, then indexes its passages. A cartridge compiled in process is kept warm at once; one
   * compiled on a thread is loaded by warmBase (after a run) or by the first question that needs it.
   */
  async onboardSection(input: SectionInput, prepared?: Promise<PreparedSection>): Promise<OnboardResult> {
    const { bytes, inputs, cart, vectors: made } = await (prepared ?? this.prepareSection(input.text))
    const cartKey = objectKey(input.workspaceId, 'carts', `${contentKey(input.text)}.cart`)
    await this.deps.store.put(cartKey, bytes, { contentType: 'application/octet-stream' })
    // Vectors of an in-process model: made with the compile (on its thread) or now.
    const e = this.deps.embedder
    const vectors =
      made && made.model === e?.model
        ? made
        : e?.embedNow && { model: e.model, list: e.embedNow(inputs.map((p) => p.text)) }
    const previous = this.repo.putSection(
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
    if (cart) this.cache.set(cartKey, cart)
    this.vectors.delete(input.sectionId)
    this.manifests.delete(input.baseId)
    if (previous && previous.cart_key !== cartKey) await this.dropCart(previous.cart_key)
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
    this.vectors.delete(sectionId)
    if (!row) return
    this.manifests.delete(row.base_id)
    await this.dropCart(row.cart_key)
  }

  /** Removes every section of a document. */
  async removeDocument(documentId: string): Promise<void> {
    for (const s of this.repo.documentSections(documentId)) await this.removeSection(s.section_id)
  }

  /** Bytes of the cartridges a base's sections use in the store, each counted once. */
  cartBytes(baseId: string): number {
    return this.repo.cartBytes(baseId)
  }

  /**
   * Learns the size of cartridges indexed before sizes were recorded, asking the store (`sizeOf`)
   * once per cartridge; returns how many it measured. Costs one indexed look-up when all are known.
   * A cartridge missing from the store stays unknown (it occupies nothing) and is not asked again
   * by this process.
   */
  async measureCarts(sizeOf: (key: string) => Promise<number | null>): Promise<number> {
    let measured = 0
    for (;;) {
      const keys = this.repo
        .unmeasuredCarts(100 + this.missingCarts.size)
        .filter((k) => !this.missingCarts.has(k))
      if (keys.length === 0) return measured
      for (const key of keys) {
        const size = await sizeOf(key)
        if (size === null || size === 0) this.missingCarts.add(key)
        else {
          this.repo.measureCart(key, size)
          measured++
        }
      }
    }
  }

  /** The sections indexed for a base, with the cartridge each uses. */
  sectionsOf(baseId: string): { sectionId: string; cartKey: string }[] {
    return this.repo.sections(baseId).map((s) => ({ sectionId: s.section_id, cartKey: s.cart_key }))
  }

  /** Removes every section of a base, then the base's index key. */
  async removeBase(baseId: string): Promise<void> {
    for (const s of this.repo.sections(baseId)) await this.removeSection(s.section_id)
    this.repo.dropBase(baseId)
    this.manifests.delete(baseId)
  }

  /**
   * Loads a base's cartridges into the warm cache now (those compiled on a thread after a run), so
   * the first question after onboarding does not wait for them.
   */
  async warmBase(baseId: string): Promise<void> {
    await this.warmEntries(baseId)
  }

  /** The model that embeds passages, or null when there is none (no server, built-in vectors off). */
  get embeddingModel(): string | null {
    return this.deps.embedder?.model ?? null
  }

  /**
   * Embeds the passages of these sections that have no vector from the configured model yet and
   * stores the vectors; returns how many were stored. A passage that changed or left while its
   * embedding was being made gets none. Rejects (LlmUnavailableError) when the server fails.
   */
  async embedSections(sectionIds: string[]): Promise<number> {
    const e = this.deps.embedder
    if (!e) return 0
    const pending = sectionIds.flatMap((id) => this.repo.passagesWithoutVector(id, e.model))
    if (pending.length === 0) return 0
    const list = await e.embed(pending.map((p) => p.text))
    const stored = this.repo.putVectors(
      e.model,
      pending.map((p, i) => ({ ...p, vec: list[i]! })),
    )
    for (const id of sectionIds) this.vectors.delete(id)
    return stored
  }

  /** Whether passages are embedded after onboarding, by an embed job (an embeddings server), not as they are indexed. */
  get embedsAfterOnboarding(): boolean {
    const e = this.deps.embedder
    return !!e && !e.embedNow
  }

  /** Bases with passages that have no vector from the configured model (none without an embedder). */
  basesWithoutVectors(): string[] {
    const model = this.embeddingModel
    return model ? this.repo.basesWithoutVectors(model) : []
  }

  /** One-off start-up work that would otherwise fall on the first question (the WordNet tables, a built-in model). */
  prepare(): void {
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
  async ask(
    baseId: string,
    input: AskInput,
    explain?: { signals?: SupportSignals; unchecked?: string; evidence?: TermEvidence },
  ): Promise<AskResult> {
    const t0 = this.now()
    const strategy = input.strategy ?? 'cart'
    const k = input.k ?? 3
    const condensed = condenseQuestion(input.question, input.history)
    const plan = planQuery(condensed)
    const docIds = input.docIds?.length ? input.docIds : undefined
    // The question's embedding is fetched while the strategy searches.
    const meaning = this.embedQuestion(condensed)
    const evidence: TermEvidence = { terms: [], df: [], passages: 0, soft: 0 }
    let ranked: RankedPassage<SectionRef>[]
    if (strategy === 'rag') {
      ranked = searchIndex(this.repo, baseId, plan, Math.max(k, 20), {
        pool: Math.max(RAG_POOL, k),
        documentIds: docIds,
        evidence,
      })
    } else {
      let entries = await this.warmEntries(baseId)
      if (docIds) entries = entries.filter((e) => docIds.includes(e.ref.documentId))
      ranked = searchCartridges(entries, plan, Math.max(k, 20), { evidence })
    }
    ranked = withDocumentPrior(
      withTermFrequency(ranked, plan.terms.length),
      (r) => r.documentId,
      ranked.length,
    )
    const question = meaning && (await meaning)
    if (question && this.deps.embedder) {
      const { model, weight } = this.deps.embedder
      // rag reads the candidates' vectors from the database, as it reads everything; cart has them warm.
      const vectorOf =
        strategy === 'rag'
          ? (p: RankedPassage<SectionRef>) => this.repo.vector(p.ref.sectionId, p.ordinal, model)
          : (p: RankedPassage<SectionRef>) => this.warmVectors(p.ref.sectionId, model)[p.ordinal] ?? null
      ranked = withMeaning(ranked, question, vectorOf, weight)
    }
    ranked = ranked.slice(0, k)
    const sources = ranked.map(toSource)
    // The passages an answer may quote (composeAnswer draws on the first three) are asked in order
    // until one supports an answer; the support is that one's, or the best when none does.
    let support = 0
    if (sources.length > 0) {
      const asked = supportQuestion(condensed, evidence)
      for (const s of sources.slice(0, SUPPORT_PASSAGES)) {
        const signals = supportSignals(asked, s.snippet, s.title)
        const score = supportScore(signals)
        if (score <= support) continue
        support = score
        if (explain) explain.signals = signals
        if (support >= SUPPORT_THRESHOLD) break
      }
    }
    if (explain) explain.evidence = evidence
    const t1 = this.now()
    const weights = new Map<string, number>()
    for (const t of plan.terms) weights.set(t, 1)
    // Decided on the retrieval evidence alone: nothing is composed from passages that do not answer.
    const answered = support >= SUPPORT_THRESHOLD
    const compose = () => composeAnswer(ranked, { weights, want: plan.want & ~AnswerType.noun }).answer
    const answer = answered ? compose() : ''
    if (explain) explain.unchecked = answered ? answer : compose()
    return {
      answer: answer || NO_ANSWER,
      answered: answer !== '',
      strategy,
      // A declined answer used no document: its sources are only the closest passages.
      used_docs: answer ? [...new Set(sources.map((s) => s.document_id))] : [],
      sources,
      condensed_q: condensed,
      metrics: {
        latency_ms: round(this.now() - t0),
        retrieval_ms: round(t1 - t0),
        strategy,
        k,
        support: round(support),
      },
    }
  }

  /** The question's embedding (null when the embedder fails, which is reported); null without an embedder. */
  private embedQuestion(question: string): Promise<Float32Array | null> | null {
    const e = this.deps.embedder
    if (!e) return null
    return e.embed([question]).then(
      (v) => v[0] ?? null,
      (err: Error) => {
        e.onQuestionFailure?.(err)
        return null
      },
    )
  }

  /** The base's cartridges, warm: loaded from the object store on a miss (all misses at once). */
  private async warmEntries(baseId: string): Promise<CartEntry<SectionRef>[]> {
    let manifest = this.manifests.get(baseId)
    if (!manifest) {
      manifest = this.repo.sections(baseId).map((s) => ({
        ref: { sectionId: s.section_id, documentId: s.document_id, title: s.title, filename: s.filename },
        titleTerms: contentTerms(s.title),
        cartKey: s.cart_key,
      }))
      this.manifests.set(baseId, manifest)
    }
    // The warm ones without a promise each (all of them, usually); only the rest are loaded.
    const entries: CartEntry<SectionRef>[] = []
    for (const m of manifest) {
      const cart = this.cache.get(m.cartKey)
      if (!cart) break
      entries.push({ ref: m.ref, titleTerms: m.titleTerms, cart })
    }
    if (entries.length === manifest.length) return entries
    const rest = await Promise.all(
      manifest.slice(entries.length).map(async (m) => ({
        ref: m.ref,
        titleTerms: m.titleTerms,
        cart:
          this.cache.get(m.cartKey) ??
          (await this.cache.getOrLoad(m.cartKey, () => this.loadCart(m.cartKey))),
      })),
    )
    return entries.concat(rest)
  }

  /**
   * A section's passage vectors from `model` (the configured one: warm copies are of it only) by
   * ordinal, null where a passage has none yet; from the warm copy, or read once from the database.
   */
  private warmVectors(sectionId: string, model: string): (Float32Array | null)[] {
    let v = this.vectors.get(sectionId)
    if (!v) {
      const list = this.repo.sectionVectors(sectionId, model)
      v = { list, bytes: 64 + list.reduce((n, x) => n + 16 + (x?.byteLength ?? 0), 0) }
      this.vectors.set(sectionId, v)
    }
    return v.list
  }

  private async loadCart(key: string): Promise<WarmCartridge> {
    const bytes = await this.deps.store.getBytes(key)
    if (!bytes) throw new Error(`cartridge ${key} is missing from the object store`)
    return decodeCartridge(bytes)
  }

  /** Warm copy first, then the durable object, and only when no section uses it any more. */
  private async dropCart(cartKey: string): Promise<void> {
    if (this.repo.cartInUse(cartKey)) return
    this.cache.delete(cartKey)
    await this.deps.store.delete(cartKey)
  }
}

/** A cartridge's content address: identical text (under one format version) shares one cartridge. */
export function contentKey(text: string): string {
  return `v${CARTRIDGE_VERSION}-${sha256Hex(text)}`
}

function toSource(p: RankedPassage<SectionRef>): Source {
  return {
    id: `${p.ref.sectionId}:${p.ordinal}`,
    title: p.ref.title,
    document_id: p.ref.documentId,
    filename: p.ref.filename,
    snippet: p.text.slice(p.start, p.end),
    score: round(p.score),
  }
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000
}
