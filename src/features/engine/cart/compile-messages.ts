// What the event loop and a compile thread say to each other, and the compile a thread runs.
import { encodePassageWords, scanPassageWords } from '../rank/index'
import {
  type HypernymTable,
  STATIC_MODEL,
  type StaticVectorTable,
  type SynonymTable,
  staticVector,
} from '../text/index'
import { compileCartridge } from './cartridge'
import { encodeCartridge } from './codec'
import { fitCartridge } from './fit'
import type { PackedSections } from './index-section'
import { type PassageInput, passageInputs } from './passages'

/**
 * What a compile thread is sent, under an id its answer carries back: a section's text to compile,
 * sections' texts to chunk into the passages a run indexes (`index`), or for its synonym table.
 */
export interface CompileRequest {
  id: number
  text: string
  /** Whether to embed the passages with the built-in static vectors too. */
  vectors: boolean
  /** Sections to chunk for the index (indexSection), instead of `text` to compile. */
  index?: string[]
  /** With `index`: the base's token prefix, put before each term of the FTS5 rows (IndexedSection.prefix). */
  prefix?: string
  /**
   * With `index`: who chunks it, in shared memory (0 until taken; 1 the thread, 2 the event loop, which
   * takes back a group the thread has not started when the run needs it): it is chunked once.
   */
  claim?: Int32Array
  /** The stemmed synonym table (synonymTable), instead of `text` to compile. */
  tables?: boolean
  /**
   * The event loop's static vectors, sent with a thread's first compile that embeds: their memory is
   * shared (a SharedArrayBuffer), so the thread reads no copy of its own.
   */
  staticVectors?: StaticVectorTable
}

/** A section compiled: its encoded cartridge and its passages as the index stores them. */
export interface CompiledSection {
  bytes: Uint8Array
  inputs: PassageInput[]
  /**
   * The passages' stored words (rank's encodePassageWords, one per input, in order): made here, on
   * the thread that has the WordNet tables, not on the event loop while a run indexes the text.
   */
  words: Uint8Array[]
  /** The passages' vectors (one per input, in order) and the model that made them, when asked for. */
  vectors?: { model: string; list: Float32Array[] }
}

/** What a compile thread answers: the compiled section, or the message of the error it threw. */
export type CompileReply =
  | ({ type: 'done'; id: number } & CompiledSection)
  | { type: 'indexed'; id: number; sections: PackedSections }
  | {
      type: 'tables'
      id: number
      synonyms: SynonymTable
      /** The other tables questions read, built on the thread too (the static vectors' memory shared). */
      hypernyms?: HypernymTable
      vectors?: StaticVectorTable
    }
  | { type: 'error'; id: number; message: string }

/**
 * A section's cartridge compiled, fitted and encoded, and its index rows with their stored words,
 * and their built-in static vectors when `vectors` is set: the same on any thread.
 */
export function compileSection(text: string, vectors = false): CompiledSection {
  const cart = compileCartridge(text, { fit: fitCartridge })
  const inputs = passageInputs(cart)
  const words = inputs.map((p) => encodePassageWords(scanPassageWords(p.text, p.sents)))
  const section: CompiledSection = { bytes: encodeCartridge(cart), inputs, words }
  if (vectors) section.vectors = { model: STATIC_MODEL, list: inputs.map((p) => staticVector(p.text)) }
  return section
}

/** The buffers a compiled section's message can hand over instead of copying. */
export function transferables(section: CompiledSection): ArrayBuffer[] {
  return [
    section.bytes.buffer as ArrayBuffer,
    ...section.words.map((w) => w.buffer as ArrayBuffer),
    ...(section.vectors?.list ?? []).map((v) => v.buffer as ArrayBuffer),
  ]
}

/** A section compiled in process (compileSection's result, or its error, as the promise's). */
export function inProcess(text: string, vectors: boolean): Promise<CompiledSection> {
  return new Promise((resolve) => resolve(compileSection(text, vectors)))
}

/** A request other than a compile made in process now (its error, the promise's). */
export function inProcessOther<T>(local: () => T): Promise<T> {
  return new Promise((resolve) => resolve(local()))
}
