import { objectKey } from '../../platform/storage/keys'
import { type CompiledSection, contentKey, type WarmCartridge } from './cart/index'
import type { CartStore, EngineCarts } from './engine.carts'
import type { EngineRepo, SectionRow } from './engine.repo'
import type { EngineVectors } from './engine.vectors'

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

/** What the engine's onboarding writes go through: its repo, store, cartridges and vectors. */
export interface OnboardParts {
  repo: EngineRepo
  store: CartStore
  carts: EngineCarts
  embeddings: EngineVectors
}

type Stored = { section: PreparedSection; cartKey: string } | Error

/**
 * Onboards sections together: cartridges written side by side (each write waits for the disk),
 * then passages indexed in one transaction; each section's result or error (the others go on). A
 * cartridge compiled in process is kept warm; one from a thread loads in warmBase or when asked.
 */
export async function onboardSections(
  parts: OnboardParts,
  inputs: SectionInput[],
  prepared: Promise<PreparedSection>[],
): Promise<(OnboardResult | Error)[]> {
  const stored = await Promise.all(
    inputs.map(async (input, i): Promise<Stored> => {
      try {
        const section = await prepared[i]!
        const cartKey = objectKey(input.workspaceId, 'carts', `${contentKey(input.text)}.cart`)
        await storeCart(parts, cartKey, section.bytes)
        return { section, cartKey }
      } catch (e) {
        return e as Error
      }
    }),
  )
  const previous: SectionRow[] = [] // rows replaced by another cartridge
  const all = () => stored.map((s, i) => index(parts, inputs[i]!, s, previous))
  const out = parts.repo.client.transaction(all)()
  // A replaced cartridge leaves the store once no section uses it (drop checks).
  for (const row of previous) await parts.carts.drop(row.cart_key)
  return out
}

/**
 * Writes a cartridge unless its key already holds these very bytes (a write waits for the disk
 * twice). Only a key some section uses is read first (a forced re-onboarding, a copy of a text): a
 * key none uses holds nothing, or a crash's leftover that the write replaces.
 */
async function storeCart(parts: OnboardParts, cartKey: string, bytes: Uint8Array): Promise<void> {
  if (parts.repo.cartInUse(cartKey)) {
    const held = await parts.store.getBytes(cartKey)
    if (held && Buffer.from(held).equals(bytes)) return
  }
  await parts.store.put(cartKey, bytes, { contentType: 'application/octet-stream' })
}

/** Indexes a stored section in onboardSections' transaction; records the row it replaced. */
function index(
  parts: OnboardParts,
  input: SectionInput,
  stored: Stored,
  previous: SectionRow[],
): OnboardResult | Error {
  if (stored instanceof Error) return stored
  const { section, cartKey } = stored
  const { bytes, inputs, cart, vectors: made } = section
  try {
    const vectors = parts.embeddings.forIndexing(
      inputs.map((p) => p.text),
      made,
    )
    // putSection's own transaction nests as a savepoint: a failing section rolls back alone.
    const row = parts.repo.putSection(
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
  if (cart) parts.carts.cache.set(cartKey, cart)
  parts.embeddings.forget(input.sectionId)
  parts.carts.forgetBase(input.baseId)
  return {
    cartKey,
    cartBytes: bytes.length,
    passages: inputs.length,
    sentences: inputs.reduce((n, p) => n + p.sents.length / 2, 0),
  }
}
