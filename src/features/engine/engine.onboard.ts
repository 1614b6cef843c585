import { exclusiveOn } from '../../platform/db/store'
import { objectKey } from '../../platform/storage/keys'
import {
  type CompiledSection,
  contentKey,
  type IndexedSection,
  indexSection,
  type WarmCartridge,
} from './cart/index'
import type { BuildsRepo } from './engine.builds.repo'
import { FAILED, isBuilt, PENDING } from './engine.cart-keys'
import type { CartStore, EngineCarts } from './engine.carts'
import { holdMerges } from './engine.merges.repo'
import type { EngineRepo } from './engine.repo'
import type { SectionRow } from './engine.rows'
import type { EngineVectors } from './engine.vectors'
import { encodePassageWords, scanPassageWords } from './rank/index'

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

/** What indexing a section produced. */
export interface OnboardResult {
  /** Where its cartridge is (PENDING until the deferred build has made it). */
  cartKey: string
  /** Its cartridge's bytes; 0 until built. */
  cartBytes: number
  passages: number
  sentences: number
}

/** What one step of a base's deferred build did, and how many sections are still waiting. */
export interface DeferredStep {
  built: number
  failed: number
  left: number
}

/** What the engine's onboarding writes go through: its repos, store, cartridges and vectors. */
export interface OnboardParts {
  repo: EngineRepo
  builds: BuildsRepo
  store: CartStore
  carts: EngineCarts
  embeddings: EngineVectors
}

/** A section's text as onboarding has it (null when its document changed or left since it was indexed). */
export type TextOf = (sectionId: string) => Promise<string | null>

/** Sections a deferred step compiles together (both compile threads busy, one transaction to record them). */
export const DEFERRED_SECTIONS = 64

/** Thrown to roll a group's writes back when one of its sections failed (indexSections writes it again). */
const GROUP_FAILED = new Error('a section of the group failed')

/** The object key of a section's cartridge: by content, so identical sections share one. */
function cartKeyOf(workspaceId: string, text: string): string {
  return objectKey(workspaceId, 'carts', `${contentKey(text)}.cart`)
}

/**
 * Indexes sections' text for rag in one transaction (the fast part of onboarding: the base answers
 * as soon as it commits): passages chunked and their FTS5 rows. Their cartridges, vectors and stored
 * words (rag reads a passage's text until they are there) are left to buildDeferred, on the compile
 * threads (the section's key marked PENDING). Each section's result or error: the group is written
 * without a savepoint a section and its bases' passage counts added once; when a section fails, that
 * is rolled back and the group written again a savepoint a section, so a failing section rolls back
 * alone. `chunked`: the sections already chunked (on a compile thread, indexSection), in order;
 * those missing are chunked here.
 */
export async function indexSections(
  parts: OnboardParts,
  inputs: SectionInput[],
  chunked: readonly IndexedSection[] = [],
): Promise<(OnboardResult | Error)[]> {
  let previous: SectionRow[] = [] // rows replaced, whose cartridges may be left unused
  const write = (counts?: Map<string, number>) => {
    previous = []
    // A group's earlier rows go first (their built cartridges looked up before): FTS5 writes the terms
    // it holds as a segment before a delete, so deletes between sections' inserts made one a section.
    const prior = counts && priorOf(parts, inputs, counts)
    const out = inputs.map((input, i) => indexOne(parts, input, chunked[i], previous, counts, prior?.[i]))
    if (counts && out.some((r) => r instanceof Error)) throw GROUP_FAILED
    if (counts) parts.repo.addCounts(counts)
    // The group's commit writes its segment without merging; the deferred job merges after (engine.merges.repo.ts).
    holdMerges(parts.repo.client, new Set(inputs.map((input) => input.baseId)))
    return out
  }
  // On the units' lock (SQLite mode: the same connection as the features' units), so these writes
  // never land inside another flow's unit.
  const out: (OnboardResult | Error)[] = await exclusiveOn(parts.repo.client, () => {
    try {
      return parts.repo.client.transaction(write)(new Map())
    } catch {
      parts.repo.forgetBases(new Set(inputs.map((input) => input.baseId)))
      return parts.repo.client.transaction(write)()
    }
  })
  // A replaced cartridge leaves the store once no section uses it (drop checks).
  for (const row of previous) await parts.carts.drop(row.cartKey)
  return out
}

/** A section's cartridge key, its size when built, and its row removed before its group's writes. */
interface Prior {
  key: string
  size: number | null
  replaced: SectionRow | null
}
function builtBefore(parts: OnboardParts, input: SectionInput): Prior {
  const key = cartKeyOf(input.workspaceId, input.text)
  return { key, size: parts.builds.builtSize(key), replaced: null }
}
/**
 * `builtBefore` of a group's sections, their built cartridges and earlier rows each read in one
 * statement (a statement a section each cost 5,000 small files 10,000), then those rows removed.
 */
function priorOf(parts: OnboardParts, inputs: SectionInput[], counts: Map<string, number>): Prior[] {
  const keys = inputs.map((input) => cartKeyOf(input.workspaceId, input.text))
  const sizes = parts.builds.builtSizes(keys)
  const rows = parts.builds.indexed(inputs.map((input) => input.sectionId))
  return inputs.map(({ sectionId }, i) => {
    const row = rows.get(sectionId) ?? null
    rows.delete(sectionId) // a section named twice is removed once
    const replaced = row && parts.repo.removeSection(sectionId, counts, row)
    return { key: keys[i]!, size: sizes.get(keys[i]!) ?? null, replaced }
  })
}

/**
 * Indexes one section. A text some section already has a cartridge for (a forced re-onboarding of
 * unchanged text, a copy) uses that cartridge at once, with its vectors and stored words made now (no
 * compile to wait for); any other waits for its deferred build.
 */
function indexOne(
  parts: OnboardParts,
  input: SectionInput,
  chunked: IndexedSection | undefined,
  previous: SectionRow[],
  counts?: Map<string, number>,
  prior: Prior = builtBefore(parts, input),
): OnboardResult | Error {
  const { key, size, replaced } = prior
  const cartKey = size === null ? PENDING + key : key
  let sentences = 0
  let passages = 0
  try {
    const { passages: inputs, fts, prefix } = chunked ?? indexSection(input.text)
    const vectors = size === null ? null : parts.embeddings.forIndexing(inputs.map((p) => p.text))
    const words =
      size === null ? null : inputs.map((p) => encodePassageWords(scanPassageWords(p.text, p.sents)))
    // putSection's own transaction nests as a savepoint: a failing section rolls back alone.
    const written = parts.repo.putSection(
      {
        sectionId: input.sectionId,
        baseId: input.baseId,
        documentId: input.documentId,
        title: input.title,
        filename: input.filename,
        cartKey: cartKey,
        nPassages: inputs.length,
        cartBytes: size ?? 0,
      },
      inputs,
      vectors,
      // In a group's writes (counts) its earlier row was removed before (priorOf).
      { words, fts, prefix, counts, removed: counts !== undefined },
    )
    const row = written ?? replaced // removed before the group's writes (indexSections), or here
    if (row && row.cartKey !== cartKey && isBuilt(row.cartKey)) previous.push(row)
    passages = inputs.length
    for (const p of inputs) sentences += p.sents.length / 2
  } catch (e) {
    return e as Error
  }
  parts.embeddings.forget(input.sectionId)
  parts.carts.forgetBase(input.baseId)
  return { cartKey, cartBytes: size ?? 0, passages, sentences }
}

/** A waiting section with its text read, the compile started. */
interface Building {
  row: SectionRow
  key: string
  text: string
  prepared: Promise<PreparedSection>
}

/**
 * One step of a base's deferred build: up to DEFERRED_SECTIONS sections waiting for their
 * cartridge are compiled (`compile`: the compile threads), their cartridges stored, and in one
 * transaction each section points at its cartridge and its passages get the stored words and the
 * vectors the compile made (the built-in model's). A section whose text (`textOf`, onboarding's)
 * changed or left since it was indexed is passed over (the run indexing it again leaves it waiting
 * anew); one whose compile fails is marked FAILED (cart passes over it; rag still finds it). A
 * failing write to the store rejects: the job's retry finds the sections still waiting.
 */
export async function buildDeferred(
  parts: OnboardParts,
  baseId: string,
  textOf: TextOf,
  compile: (text: string) => Promise<PreparedSection>,
): Promise<DeferredStep> {
  const rows = parts.builds.waiting(baseId, DEFERRED_SECTIONS)
  const texts = await Promise.all(rows.map((r) => textOf(r.sectionId)))
  const work: Building[] = []
  rows.forEach((row, i) => {
    const text = texts[i]
    if (text === null || text === undefined) return
    const workspaceId = row.cartKey.slice(PENDING.length).split('/')[0]!
    const key = cartKeyOf(workspaceId, text)
    if (PENDING + key !== row.cartKey) return
    const prepared = compile(text)
    prepared.catch(() => {})
    work.push({ row, key, text, prepared })
  })
  // Side by side: each write waits for the disk.
  const done = await Promise.all(
    work.map(async (w) => {
      const section = await w.prepared.catch((e: Error) => e)
      if (!(section instanceof Error)) await storeCart(parts, w.key, section.bytes)
      return section
    }),
  )
  let built = 0
  let failed = 0
  // Cartridges stored for sections gone meanwhile (their base or document deleted, new text).
  const unused = new Set<number>()
  await exclusiveOn(parts.repo.client, () =>
    parts.repo.client.transaction(() => {
      work.forEach((w, i) => {
        const section = done[i]!
        const id = w.row.sectionId
        if (section instanceof Error) {
          if (parts.builds.setCart(id, w.row.cartKey, FAILED + w.key, 0)) failed++
          return
        }
        if (!parts.builds.setCart(id, w.row.cartKey, w.key, section.bytes.length)) {
          unused.add(i)
          return
        }
        built++
        parts.repo.putWords(id, section.words)
        const vectors = parts.embeddings.forIndexing(
          section.inputs.map((p) => p.text),
          section.vectors,
        )
        if (!vectors) return
        const missing = parts.repo.vectors.passagesWithoutVector(id, vectors.model)
        const rows = missing.map((p) => ({ ...p, vec: vectors.list[p.ordinal]! })).filter((p) => p.vec)
        parts.repo.vectors.putVectors(vectors.model, rows)
      })
    })(),
  )
  // A deletion's purge ran before these were stored: they leave the store unless a section uses them.
  for (const i of unused) await parts.carts.drop(work[i]!.key)
  work.forEach((w, i) => {
    const section = done[i]!
    if (!(section instanceof Error) && section.cart && !unused.has(i))
      parts.carts.cache.set(w.key, section.cart)
    parts.embeddings.forget(w.row.sectionId)
  })
  parts.carts.forgetBase(baseId)
  return { built, failed, left: parts.builds.left(baseId) }
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
