import { exclusiveOn } from '../../platform/db/store'
import { ApiError } from '../../platform/errors/errors'
import type { ObjectStore } from '../../platform/storage/object-store'
import {
  type CartEntry,
  type CartRoute,
  decodeCartridge,
  internTerm,
  routeCartridges,
  routeSize,
  type WarmCartridge,
} from './cart/index'
import { WarmCache } from './common/index'
import { BuildsRepo } from './engine.builds.repo'
import { isBuilt } from './engine.cart-keys'
import type { EngineRepo } from './engine.repo'
import type { SectionRef } from './rag/index'
import { contentTerms } from './text/index'

/** Where cartridges are kept durably: the object store's byte-level calls. */
export type CartStore = Pick<ObjectStore, 'getBytes' | 'put' | 'delete'>

/** Cartridges loaded from the store at once when a base's are warmed. */
const LOADS_AT_ONCE = 8
/** Warm bytes per stored byte of a cartridge until loads have measured it (squad-dev: 4.07). */
const WARM_PER_STORED = 4

/** A section of a base as the cart strategy needs it, before its cartridge is warm. */
interface ManifestEntry {
  ref: SectionRef
  titleIds: Uint32Array
  cartKey: string
  /** The cartridge's size in the store (0 when not measured). */
  storedBytes: number
}

/**
 * A question's cartridge could not be loaded: missing or damaged in the store (`damaged`: its
 * sections now wait for their deferred build to make it again), or the store failed to answer. The
 * question is answered by rag instead.
 */
export class CartUnavailable extends Error {
  constructor(
    readonly cartKey: string,
    readonly damaged: boolean,
    cause: string,
  ) {
    super(`cartridge ${cartKey} unavailable: ${cause}`)
  }
}

/** A base's warm cartridges for one question, and its route over them (the same order). */
export interface CartSet {
  entries: CartEntry<SectionRef>[]
  route: CartRoute
}

/**
 * The cartridges: durable in the object store, warm in memory under a byte budget, and each base's
 * list of them (its manifest) kept until a change to the base invalidates it.
 */
export class EngineCarts {
  readonly cache: WarmCache<WarmCartridge>
  private readonly manifests = new Map<string, ManifestEntry[]>()
  /**
   * Each base's cartridges and route as the last question found them, and the warm cache's version
   * then. The route is built by the first question after a change to the base; the list is reused
   * while the cache has neither stored nor dropped anything since (all its cartridges are still
   * warm, and their recency can only matter to an eviction, which a store would have to cause).
   */
  private readonly sets = new Map<string, CartSet & { manifest: ManifestEntry[]; version: number }>()
  /** Cartridge keys measure found missing from the store, not asked again. */
  private readonly missing = new Set<string>()
  /** The sections waiting for their cartridge (onboarding's deferred build). */
  readonly builds: BuildsRepo
  /** Whether each base has every cartridge built, as last read (until a change to the base). */
  private readonly built = new Map<string, boolean>()
  /** Stored and warm bytes of the cartridges loaded so far (how much a cartridge grows when warm). */
  private readonly loaded = { stored: 0, warm: 0 }
  /** Whether each base fits, as last worked out, for its manifest and the cache's version then. */
  private readonly fitting = new Map<string, { manifest: ManifestEntry[]; version: number; fits: boolean }>()
  /** Told the bases whose cartridges were found missing or damaged (onboarding queues their build). */
  private readonly damagedListeners: ((baseId: string) => void | Promise<void>)[] = []

  constructor(
    private readonly repo: EngineRepo,
    private readonly store: CartStore,
    budgetBytes: number,
  ) {
    this.cache = new WarmCache({ budgetBytes, sizeOf: (c) => c.bytes })
    this.builds = new BuildsRepo(repo.client)
  }

  /** Bytes of the base's route, 0 until a question has built it. */
  routeBytes(baseId: string): number {
    const set = this.sets.get(baseId)
    return set ? routeSize(set.route) : 0
  }

  /**
   * Whether a base's cartridges, warm, fit the cache's budget. The cart search reads all of a base's
   * cartridges for every question, so a base that does not fit would hold them all beyond the budget
   * (and load them again on every question): its questions are answered by rag instead.
   */
  fits(baseId: string): boolean {
    const manifest = this.manifestOf(baseId)
    const last = this.fitting.get(baseId)
    if (last?.manifest === manifest && last.version === this.cache.version) return last.fits
    // Warm cartridges by their size; the others by their stored size, grown as much as the base's
    // warm ones grew (else as loads have measured, else by WARM_PER_STORED).
    let warm = 0
    let cold = 0
    const known = { stored: 0, warm: 0 }
    for (const m of manifest) {
      const size = this.cache.sizeOf(m.cartKey)
      if (size === undefined) cold += m.storedBytes
      else warm += size
      if (size !== undefined && m.storedBytes > 0) {
        known.stored += m.storedBytes
        known.warm += size
      }
    }
    const { loaded } = this
    const grows =
      known.stored > 0
        ? known.warm / known.stored
        : loaded.stored > 0
          ? loaded.warm / loaded.stored
          : WARM_PER_STORED
    const fits = warm + cold * grows <= this.cache.budget
    this.fitting.set(baseId, { manifest, version: this.cache.version, fits })
    return fits
  }

  /** Forgets a base's manifest after a change to its sections. */
  forgetBase(baseId: string): void {
    this.built.delete(baseId)
    this.manifests.delete(baseId)
    this.sets.delete(baseId)
    this.fitting.delete(baseId)
  }

  /** Whether every section of the base has its cartridge (none waits for its deferred build). */
  ready(baseId: string): boolean {
    const known = this.built.get(baseId)
    if (known !== undefined) return known
    const ready = !this.builds.anyWaiting(baseId)
    this.built.set(baseId, ready)
    return ready
  }

  /**
   * The base's cartridges, warm, and its route over them. The route depends only on the cartridges'
   * content, so one reloaded after an eviction keeps it valid.
   */
  async set(baseId: string): Promise<CartSet> {
    const known = this.sets.get(baseId)
    if (known && known.version === this.cache.version) return known
    const manifest = this.manifestOf(baseId)
    const entries = await this.warm(manifest)
    const route = known?.manifest === manifest ? known.route : routeCartridges(entries.map((e) => e.cart))
    const set = { entries, route, manifest, version: this.cache.version }
    // A change to the base while its cartridges were loading leaves the list to the next question.
    if (this.manifests.get(baseId) === manifest) this.sets.set(baseId, set)
    return set
  }

  private manifestOf(baseId: string): ManifestEntry[] {
    let manifest = this.manifests.get(baseId)
    if (!manifest) {
      // Sections without a cartridge (waiting for it, or failed to compile) are rag's alone.
      manifest = this.repo
        .sections(baseId)
        .filter((s) => isBuilt(s.cartKey))
        .map((s) => ({
          ref: { sectionId: s.sectionId, documentId: s.documentId, title: s.title, filename: s.filename },
          // Global numbers, so a question's terms meet the title's by number.
          titleIds: Uint32Array.from(contentTerms(s.title), internTerm),
          cartKey: s.cartKey,
          storedBytes: s.cartBytes,
        }))
      this.manifests.set(baseId, manifest)
    }
    return manifest
  }

  /** A manifest's cartridges, warm: loaded from the object store on a miss (all misses at once). */
  private async warm(manifest: ManifestEntry[]): Promise<CartEntry<SectionRef>[]> {
    // The warm ones without a promise each (all of them, usually); only the rest are loaded.
    const entries: CartEntry<SectionRef>[] = []
    for (const m of manifest) {
      const cart = this.cache.get(m.cartKey)
      if (!cart) break
      entries.push({ ref: m.ref, titleIds: m.titleIds, cart })
    }
    if (entries.length === manifest.length) return entries
    // A few loads at a time: all of a large base's at once held every stored copy together.
    const rest: CartEntry<SectionRef>[] = []
    const todo = manifest.slice(entries.length)
    for (let i = 0; i < todo.length; i += LOADS_AT_ONCE)
      rest.push(
        ...(await Promise.all(
          todo.slice(i, i + LOADS_AT_ONCE).map(async (m) => ({
            ref: m.ref,
            titleIds: m.titleIds,
            cart:
              this.cache.get(m.cartKey) ??
              (await this.cache.getOrLoad(m.cartKey, () => this.load(m.cartKey))),
          })),
        )),
      )
    return entries.concat(rest)
  }

  /** Warm copy first, then the durable object, and only when no section uses it any more. */
  async drop(cartKey: string): Promise<void> {
    if (!isBuilt(cartKey) || this.repo.cartInUse(cartKey)) return
    this.cache.delete(cartKey)
    await this.store.delete(cartKey)
  }

  /**
   * Learns the size of cartridges indexed before sizes were recorded, asking the store (`sizeOf`)
   * once per cartridge; returns how many it measured. Costs one indexed look-up when all are known.
   * A cartridge missing from the store stays unknown (it occupies nothing) and is not asked again
   * by this process.
   */
  async measure(sizeOf: (key: string) => Promise<number | null>): Promise<number> {
    let measured = 0
    for (;;) {
      const keys = this.builds.unmeasuredCarts(100 + this.missing.size).filter((k) => !this.missing.has(k))
      if (keys.length === 0) return measured
      for (const key of keys) {
        // A section waiting for its cartridge has none yet: its build records the size.
        const size = isBuilt(key) ? await sizeOf(key) : null
        if (size === null || size === 0) this.missing.add(key)
        else {
          await exclusiveOn(this.builds.client, () => this.builds.measureCart(key, size))
          measured++
        }
      }
    }
  }

  /** Calls `listener` with each base whose cartridges are found missing or damaged in the store. */
  whenDamaged(listener: (baseId: string) => void | Promise<void>): void {
    this.damagedListeners.push(listener)
  }

  /**
   * A cartridge found missing or damaged: its sections (in every base using it) wait for their
   * deferred build again, so cart answers by rag until it is made anew, and their bases are told.
   */
  async damaged(cartKey: string): Promise<string[]> {
    this.cache.delete(cartKey)
    const bases = await exclusiveOn(this.builds.client, () => this.builds.damage(cartKey))
    for (const baseId of bases) {
      this.forgetBase(baseId)
      for (const tell of this.damagedListeners) await tell(baseId)
    }
    return bases
  }

  private async load(key: string): Promise<WarmCartridge> {
    // A refusal (the workspace's key disabled) stands: the question is refused, not answered by rag.
    const bytes = await this.store.getBytes(key).catch((e: Error) => {
      throw e instanceof ApiError ? e : new CartUnavailable(key, false, e.message)
    })
    const cart = bytes ? decodeOrNull(bytes) : null
    if (!bytes || !cart) {
      await this.damaged(key)
      throw new CartUnavailable(
        key,
        true,
        bytes ? 'damaged in the object store' : 'missing from the object store',
      )
    }
    this.loaded.stored += bytes.byteLength
    this.loaded.warm += cart.bytes
    return cart
  }
}

/** A cartridge's bytes decoded, or null when they are not a whole cartridge (deflate checks its data). */
function decodeOrNull(bytes: Uint8Array): WarmCartridge | null {
  try {
    return decodeCartridge(bytes)
  } catch {
    return null
  }
}
