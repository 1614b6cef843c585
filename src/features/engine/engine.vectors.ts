import { exclusiveOn } from '../../platform/db/store'
import { WarmCache } from './common/index'
import type { Meaning } from './compose/index'
import type { PassageCache } from './engine.passages'
import type { VectorRepo } from './engine.vectors.repo'
import type { SectionRef } from './rag/index'
import type { RankedPassage } from './rank/index'
import { REFERENCE_TEXTS, type References, referencesOf } from './support/index'
import { STATIC_MODEL } from './text/index'

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

/** A section's passage vectors from one model, by ordinal (null where a passage has none yet). */
export interface SectionVectors {
  list: (Float32Array | null)[]
  /** Bytes this copy holds, for the warm cache's budget. */
  bytes: number
}

/**
 * The engine's passage embeddings: made as passages are indexed (an in-process model) or later by
 * an embed job (an embeddings server), stored by the repo, and kept warm per section for cart.
 */
export class EngineVectors {
  /** Passage vectors of the configured model by section, warm for cart. */
  readonly warm: WarmCache<SectionVectors>
  private references: Promise<References | null> | null = null

  constructor(
    private readonly repo: VectorRepo,
    private readonly embedder: Embedder | null,
    budgetBytes: number,
    /** Rag's pooled passages, whose vectors are kept with them once read (none: read every time). */
    private readonly pooled?: PassageCache,
  ) {
    this.warm = new WarmCache({ budgetBytes, sizeOf: (v) => v.bytes })
  }

  /** The model that embeds passages, or null when there is none. */
  get model(): string | null {
    return this.embedder?.model ?? null
  }

  /** Whether passages are embedded after onboarding, by an embed job, not as they are indexed. */
  get afterOnboarding(): boolean {
    return !!this.embedder && !this.embedder.embedNow
  }

  /**
   * The vectors to store with a section being indexed: those made with its compile (on its thread)
   * when they are the configured model's, else made now by an in-process model; none otherwise.
   */
  forIndexing(
    texts: string[],
    made?: { model: string; list: Float32Array[] },
  ): { model: string; list: Float32Array[] } | undefined {
    const e = this.embedder
    if (made && made.model === e?.model) return made
    return e?.embedNow && { model: e.model, list: e.embedNow(texts) }
  }

  /** Forgets the warm copy of a section whose passages changed. */
  forget(sectionId: string): void {
    this.warm.delete(sectionId)
  }

  /**
   * Embeds the passages of these sections that have no vector from the configured model yet and
   * stores the vectors; returns how many were stored. A passage that changed or left while its
   * embedding was being made gets none. Rejects (LlmUnavailableError) when the server fails.
   */
  async embedSections(sectionIds: string[]): Promise<number> {
    const e = this.embedder
    if (!e) return 0
    const pending = sectionIds.flatMap((id) => this.repo.passagesWithoutVector(id, e.model))
    if (pending.length === 0) return 0
    const list = await e.embed(pending.map((p) => p.text))
    const rows = pending.map((p, i) => ({ ...p, vec: list[i]! }))
    const stored = await exclusiveOn(this.repo.client, () => this.repo.putVectors(e.model, rows))
    for (const id of sectionIds) this.warm.delete(id)
    return stored
  }

  /** Bases with passages that have no vector from the configured model (none without an embedder). */
  basesWithoutVectors(): string[] {
    const model = this.model
    return model ? this.repo.basesWithoutVectors(model) : []
  }

  /** Re-ranking by meaning for one question, its embedding requested now; null without an embedder. */
  meaning(question: string): Meaning | null {
    const e = this.embedder
    if (!e) return null
    const embedded = e.embed([question]).then(
      (v) => v[0] ?? null,
      (err: Error) => {
        e.onQuestionFailure?.(err)
        return null
      },
    )
    return {
      weight: e.weight,
      question: embedded,
      references: e.model === STATIC_MODEL ? null : this.referenceVectors(e),
      // rag's candidates' vectors are kept with its pooled passages (read once a generation); cart has them warm.
      vectorOf: (strategy) =>
        strategy === 'rag'
          ? (p: RankedPassage<SectionRef>) => this.pooledVector(p, e.model)
          : (p: RankedPassage<SectionRef>) => this.warmVectors(p.ref.sectionId, e.model)[p.ordinal] ?? null,
    }
  }

  /** Has an embeddings server embed the reference texts now, not with the first question; settles when done or failed. */
  async prepare(): Promise<void> {
    const e = this.embedder
    if (e && e.model !== STATIC_MODEL) await this.referenceVectors(e)
  }

  /** The reference texts under the model, embedded once (asked again after a failure). */
  private referenceVectors(e: Embedder): Promise<References | null> {
    this.references ??= e
      .embed([...REFERENCE_TEXTS])
      .then(referencesOf)
      .catch(() => {
        this.references = null
        return null
      })
    return this.references
  }

  /** A rag candidate's vector: kept with its pooled passage, else read from the database. */
  private pooledVector(p: RankedPassage<SectionRef>, model: string): Float32Array | null {
    const read = () => this.repo.vector(p.ref.sectionId, p.ordinal, model)
    if (p.id === undefined || !this.pooled) return read()
    return this.pooled.vector(
      p.id,
      { text: p.text, sectionId: p.ref.sectionId, ordinal: p.ordinal },
      model,
      read,
    )
  }

  /**
   * A section's passage vectors from `model` (the configured one: warm copies are of it only) by
   * ordinal, null where a passage has none yet; from the warm copy, or read once from the database.
   */
  private warmVectors(sectionId: string, model: string): (Float32Array | null)[] {
    let v = this.warm.get(sectionId)
    if (!v) {
      const list = this.repo.sectionVectors(sectionId, model)
      v = { list, bytes: 64 + list.reduce((n, x) => n + 16 + (x?.byteLength ?? 0), 0) }
      this.warm.set(sectionId, v)
    }
    return v.list
  }
}
