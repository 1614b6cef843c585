import { sha256Hex } from '../../platform/crypto/hash'
import { exclusiveOn } from '../../platform/db/store'
import { cartridgeText, contentKey } from './cart/index'
import type { BuildsRepo } from './engine.builds.repo'
import { FAILED, PENDING } from './engine.cart-keys'
import type { CartStore, EngineCarts } from './engine.carts'
import { mergeStep, mergesHeld } from './engine.merges.repo'
import { DEFERRED_SECTIONS } from './engine.onboard'
import type { SectionRow } from './engine.rows'

/** What a check of a base's cartridges found: those read, and those missing or damaged (to build again). */
export interface CartCheck {
  checked: number
  damaged: number
}

/**
 * A section waiting for its cartridge, as onboarding's deferred build sees it: under the keys it lists
 * a dropped section with on the wire (onboarding.deferred.ts reads them; it is another feature's file).
 */
export interface WaitingSection {
  section_id: string
  document_id: string
  filename: string
  cart_key: string
}

/**
 * The deferred build's side of the cartridges, for onboarding: the sections waiting, giving up on
 * one whose text cannot be read, and checking that the cartridges a base keeps are whole in the
 * store (a forced run), their damaged ones waiting to be built again.
 */
export class CartBuilds {
  constructor(
    private readonly builds: BuildsRepo,
    private readonly carts: EngineCarts,
    private readonly store: CartStore,
  ) {}

  /** How many sections of the base wait for their cartridge. */
  left(baseId: string): number {
    return this.builds.left(baseId)
  }

  /** Whether the base has any section indexed (none once it is deleted). */
  holds(baseId: string): boolean {
    return this.builds.holds(baseId)
  }

  /** Bases with sections waiting for their cartridge. */
  bases(): string[] {
    return this.builds.bases()
  }

  /** Up to `limit` sections of the base waiting for their cartridge (a deferred step's worth by default). */
  waiting(baseId: string, limit = DEFERRED_SECTIONS): WaitingSection[] {
    return this.builds.waiting(baseId, limit).map((r: SectionRow) => ({
      section_id: r.sectionId,
      document_id: r.documentId,
      filename: r.filename,
      cart_key: r.cartKey,
    }))
  }

  /**
   * Gives up on a waiting section's cartridge when its text (`text`, as onboarding reads it now) is
   * lost or no longer the text it was indexed with: marked FAILED, so the cart strategy passes over
   * it and rag still answers from its indexed text (a run indexing it anew makes it wait again). A
   * section whose text still matches, or indexed again since it was read (its key changed), is left
   * to its build; returns whether it gave up.
   */
  giveUp(section: WaitingSection, text: string | null): boolean {
    if (!section.cart_key.startsWith(PENDING)) return false
    if (text !== null && section.cart_key.endsWith(`/${contentKey(text)}.cart`)) return false
    const failed = FAILED + section.cart_key.slice(PENDING.length)
    return this.builds.setCart(section.section_id, section.cart_key, failed, 0)
  }

  /** Whether a run held the FTS5 merges of the base's index (engine.merges.repo.ts): the deferred job merges. */
  mergesHeld(baseId: string): boolean {
    return mergesHeld(this.builds.client, baseId)
  }

  /** A bounded step of the base's index's merges, its run's hold ended; whether it merged anything. */
  mergeStep(baseId: string): Promise<boolean> {
    return exclusiveOn(this.builds.client, () => mergeStep(this.builds.client, baseId))
  }

  /** Tells `listener` of each base whose cartridges a question found missing or damaged. */
  whenDamaged(listener: (baseId: string) => void | Promise<void>): void {
    this.carts.whenDamaged(listener)
  }

  /**
   * Reads every cartridge the base's sections use from the store and checks it: it exists, inflates
   * (deflate's checksum covers its data) and holds the text its content key names (the text's hash);
   * its warm copy is not built (a quarter of decoding's time). One that does not is marked damaged:
   * its sections wait for the deferred build again. `step` runs between cartridges (the job's cancel
   * flag). A store that fails to answer rejects (the job tries again).
   */
  async verify(baseId: string, step: (done: number, total: number) => void = () => {}): Promise<CartCheck> {
    const keys = this.builds.builtKeys(baseId)
    let damaged = 0
    for (const [i, key] of keys.entries()) {
      step(i, keys.length)
      const bytes = await this.store.getBytes(key)
      const text = bytes ? cartridgeText(bytes) : null
      if (text !== null && key.endsWith(`-${sha256Hex(text)}.cart`)) continue
      await this.carts.damaged(key)
      damaged++
    }
    return { checked: keys.length, damaged }
  }
}
