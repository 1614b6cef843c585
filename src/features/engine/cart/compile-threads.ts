import type { ThreadWorker } from '../../../platform/concurrency/thread-worker'
import { workerScriptPath } from '../../../platform/concurrency/worker-path'
import { encodePassageWords, scanPassageWords } from '../rank/index'
import { STATIC_MODEL, type SynonymTable, staticVector, synonymTable } from '../text/index'
import { compileCartridge } from './cartridge'
import { encodeCartridge } from './codec'
import { fitCartridge } from './fit'
import { type IndexedSection, indexSection } from './index-section'
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
  /** The stemmed synonym table (synonymTable), instead of `text` to compile. */
  tables?: boolean
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
  | { type: 'indexed'; id: number; sections: IndexedSection[] }
  | { type: 'tables'; id: number; synonyms: SynonymTable }
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

/** A worker as the pool uses it (a Web Worker, or a stand-in in tests). */
export type CompileWorker = ThreadWorker<CompileRequest>

/** How many threads, how they start (tests), and where a fall-back to in-process compiling is told. */
export interface CompileThreadsOptions {
  threads: number
  /** How long a thread may sit idle before it is stopped (its memory freed); default 10 s. */
  idleMs?: number
  spawn?: () => CompileWorker
  onFallback?: (reason: string) => void
  /**
   * Embed each section's passages with the built-in static vectors on the thread too (when they are
   * the engine's embedder), so the event loop does not.
   */
  staticVectors?: boolean
}

/**
 * Where the worker script is: beside this file from a checkout; in the compiled executable, where
 * scripts/build.ts adds it as an entry point.
 */
export function compileWorkerPath(moduleUrl: string = import.meta.url): string {
  return workerScriptPath(moduleUrl, 'compile-worker.ts', 'features/engine/cart/compile-worker.ts')
}

/** A short text whose compile touches every table a compile reads. */
const WARM_TEXT = 'The first cartridge warms the thread. It was compiled in 1973 by Engram.'

interface Pending {
  text: string
  resolve: (section: CompiledSection) => void
  reject: (e: Error) => void
  /** A request other than a compile: its answer goes to `other`; `local` makes it in process. */
  other?: (answer: unknown) => void
  local?: () => unknown
}

interface Slot {
  worker: CompileWorker
  pending: Map<number, Pending>
  /** Compiles posted to the thread and not answered yet (at most COMPILES_POSTED). */
  posted: number
  /** Compiles held here until the thread has fewer posted: an index request passes them. */
  held: CompileRequest[]
  idle: ReturnType<typeof setTimeout> | null
  stopped: boolean
}

/**
 * Compiles a thread is given at once. The deferred build asks for many; a run's index requests,
 * which its writes wait for, go to the thread at once and so wait for at most these.
 */
const COMPILES_POSTED = 2

/**
 * Compiles cartridges on worker threads, so onboarding's heaviest step leaves the event loop free
 * for questions and overlaps the index writes of the section before. Threads start on first use,
 * never keep the process alive while idle, and stop after a while idle (a new one starts on the next
 * compile). A thread that cannot start or dies is not replaced: what it had, and everything after,
 * compiles in process (the results are the same either way).
 */
export class CompileThreads {
  private readonly slots: Slot[] = []
  private nextId = 1
  private failed = false
  private closed = false

  constructor(private readonly opts: CompileThreadsOptions) {}

  /** A section's text compiled (compileSection's result). */
  compile(text: string): Promise<CompiledSection> {
    if (this.closed) return Promise.reject(new Error('the compile threads are closed'))
    const slot = this.failed ? null : this.slot()
    const vectors = this.opts.staticVectors ?? false
    if (!slot) return inProcess(text, vectors)
    return new Promise<CompiledSection>((resolve, reject) => {
      const id = this.nextId++
      this.busy(slot)
      slot.pending.set(id, { text, resolve, reject })
      const request = { id, text, vectors }
      if (slot.posted < COMPILES_POSTED) this.post(slot, request)
      else slot.held.push(request)
    })
  }

  /**
   * Sections' texts chunked for the index (indexSection's results, in order), on a thread ahead of
   * the compiles it holds, so that a run's next group is chunked while the event loop writes this one.
   */
  index(texts: string[]): Promise<IndexedSection[]> {
    return this.ask({ index: texts }, () => texts.map(indexSection))
  }

  /** The stemmed synonym table, built on a thread (the event loop adopts it instead of building it). */
  synonyms(): Promise<SynonymTable> {
    return this.ask({ tables: true }, synonymTable)
  }

  /** A request other than a compile, sent at once (ahead of the compiles held); in process without a thread. */
  private ask<T>(request: { index?: string[]; tables?: boolean }, local: () => T): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the compile threads are closed'))
    const slot = this.failed ? null : this.slot()
    if (!slot) return new Promise((resolve) => resolve(local()))
    return new Promise<T>((resolve, reject) => {
      const id = this.nextId++
      this.busy(slot)
      const other = resolve as (answer: unknown) => void
      slot.pending.set(id, { text: '', resolve: () => {}, reject, other, local })
      slot.worker.postMessage({ id, text: request.index?.[0] ?? '', vectors: false, ...request })
    })
  }

  /** A thread given work: kept from stopping while it has some. */
  private busy(slot: Slot): void {
    if (slot.pending.size > 0) return
    if (slot.idle) clearTimeout(slot.idle)
    slot.idle = null
    slot.worker.ref()
  }

  private post(slot: Slot, request: CompileRequest): void {
    slot.posted++
    slot.worker.postMessage(request)
  }

  /**
   * Starts a thread ahead of a run and has it chunk a short text (the tables a run's chunking reads),
   * so the run's first groups do not wait for it; the compile's own tables load with the first
   * compile, after the run. Does nothing once threads have failed or are closed.
   */
  warm(): void {
    if (this.failed || this.closed) return
    this.index([WARM_TEXT]).catch(() => {})
  }

  /** Stops every thread; what they still had fails. */
  close(): void {
    this.closed = true
    for (const slot of [...this.slots]) {
      this.stop(slot)
      for (const p of slot.pending.values()) p.reject(new Error('the compile threads are closed'))
    }
  }

  /** The least busy thread, starting one while fewer than asked for run; null when none can start. */
  private slot(): Slot | null {
    let best: Slot | null = null
    for (const s of this.slots) if (!best || s.pending.size < best.pending.size) best = s
    if (best && (best.pending.size === 0 || this.slots.length >= this.opts.threads)) return best
    try {
      const worker = (
        this.opts.spawn ?? (() => new Worker(compileWorkerPath()) as unknown as CompileWorker)
      )()
      const slot: Slot = { worker, pending: new Map(), posted: 0, held: [], idle: null, stopped: false }
      worker.onmessage = (e) => this.answer(slot, e.data as CompileReply)
      worker.onerror = (e) => {
        e.preventDefault?.()
        this.fail(slot, e.message || 'unknown error')
      }
      worker.addEventListener('close', () => {
        if (!slot.stopped) this.fail(slot, 'it exited')
      })
      worker.unref()
      this.slots.push(slot)
      return slot
    } catch (e) {
      this.fail(null, (e as Error)?.message ?? String(e))
      return best
    }
  }

  private answer(slot: Slot, msg: CompileReply): void {
    const p = slot.pending.get(msg.id)
    if (!p) return
    slot.pending.delete(msg.id)
    if (!p.other) {
      slot.posted--
      const next = slot.held.shift()
      if (next) this.post(slot, next)
    }
    if (slot.pending.size === 0) {
      slot.worker.unref()
      slot.idle = setTimeout(() => this.stop(slot), this.opts.idleMs ?? 10_000)
      ;(slot.idle as { unref?: () => void }).unref?.()
    }
    if (msg.type === 'indexed') p.other?.(msg.sections)
    else if (msg.type === 'tables') p.other?.(msg.synonyms)
    else if (msg.type === 'done')
      p.resolve({ bytes: msg.bytes, inputs: msg.inputs, words: msg.words, vectors: msg.vectors })
    else p.reject(new Error(msg.message))
  }

  /** Stops a thread on purpose (idle, or closing): its exit is not a failure. */
  private stop(slot: Slot): void {
    if (slot.idle) clearTimeout(slot.idle)
    slot.stopped = true
    const i = this.slots.indexOf(slot)
    if (i >= 0) this.slots.splice(i, 1)
    slot.worker.terminate()
  }

  /** Gives up on threads: the failed one's work compiles in process, and so does all later work. */
  private fail(slot: Slot | null, reason: string): void {
    if (this.closed || slot?.stopped) return
    if (!this.failed) this.opts.onFallback?.(reason)
    this.failed = true
    if (!slot) return
    this.stop(slot)
    const vectors = this.opts.staticVectors ?? false
    for (const p of slot.pending.values()) {
      if (p.other) p.other(p.local!())
      else inProcess(p.text, vectors).then(p.resolve, p.reject)
    }
    slot.pending.clear()
    slot.held = []
  }
}

function inProcess(text: string, vectors: boolean): Promise<CompiledSection> {
  return new Promise((resolve) => resolve(compileSection(text, vectors)))
}
