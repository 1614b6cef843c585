import type { ThreadWorker } from '../../../platform/concurrency/thread-worker'
import { workerScriptPath } from '../../../platform/concurrency/worker-path'
import * as txt from '../text/index'
import {
  type CompiledSection,
  type CompileReply,
  type CompileRequest,
  inProcess,
  inProcessOther,
} from './compile-messages'
import { type Chunking, indexSection, unpackSections } from './index-section'

/** A worker as the pool uses it (a Web Worker, or a stand-in in tests). */
export type CompileWorker = ThreadWorker<CompileRequest>

/** How many threads, how they start (tests), and where a fall-back to in-process compiling is told. */
export interface CompileThreadsOptions {
  threads: number
  /** Idle time before a thread is stopped (its memory freed): 10 s; 2 s after a run's chunking (runIdleMs). */
  idleMs?: number
  runIdleMs?: number
  spawn?: () => CompileWorker
  onFallback?: (reason: string) => void
  /**
   * Embed each section's passages with the built-in static vectors on the thread too (when they are
   * the engine's embedder), so the event loop does not.
   */
  staticVectors?: boolean
}

/** Where the worker script is: beside this file from a checkout, or where scripts/build.ts adds it in the executable. */
export function compileWorkerPath(moduleUrl: string = import.meta.url): string {
  return workerScriptPath(moduleUrl, 'compile-worker.ts', 'features/engine/cart/compile-worker.ts')
}

/** A short text whose chunking reads the tables a run's chunking reads. */
const WARM_TEXT = 'The first cartridge warms the thread. It was compiled in 1973 by Engram.'

interface Pending {
  /** The text compiled (an index request's first); an index request's texts, which its answer's passages slice. */
  text: string
  texts?: string[]
  resolve: (section: CompiledSection) => void
  reject: (e: Error) => void
  /** A request other than a compile: its answer goes to `other`; `local` makes it in process. */
  other?: (answer: unknown) => void
  local?: () => unknown
  /** Which request other than a compile it is. */
  kind?: 'index' | 'tables'
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
  /** Whether the thread has static vectors: the event loop's, sent, or its own (the tables' answer brings them back). */
  vectors: boolean
}

/** A run's groups a thread may have unanswered, beyond which the next is chunked here (the run takes back those not started, Chunking.take). */
const INDEX_QUEUED = 8

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
      const request: CompileRequest = { id, text, vectors }
      // The first compile that embeds brings the event loop's table if it has one (shared, not a copy).
      if (vectors && !slot.vectors) request.staticVectors = txt.loadedStaticVectors() ?? undefined
      if (vectors) slot.vectors = true
      if (slot.posted < COMPILES_POSTED) this.post(slot, request)
      else slot.held.push(request)
    })
  }

  /**
   * Sections' texts chunked for the index (indexSection's, `prefix` before each term): on a thread ahead
   * of its compiles, while the event loop writes the run's groups before, when a thread has room
   * (freeToIndex), else here at once. `take` chunks here a group the thread has not started.
   */
  index(texts: string[], prefix = ''): Chunking {
    const local = () => texts.map((text) => indexSection(text, prefix))
    const slot = this.freeToIndex()
    if (!slot || this.closed) return this.closed ? this.ask('index', {}, local) : inProcessOther(local)
    const claim = new Int32Array(new SharedArrayBuffer(4))
    const id = this.nextId
    const chunking: Chunking = this.ask('index', { index: texts, claim, prefix }, local, slot)
    chunking.take = () => this.take(slot, id, claim)
    return chunking
  }

  /** A group the thread has not started, chunked here now (its claim the event loop's); else nothing. */
  private take(slot: Slot, id: number, claim: Int32Array): void {
    const p = slot.pending.get(id)
    if (!p || Atomics.compareExchange(claim, 0, 0, 2) !== 0) return
    slot.pending.delete(id)
    this.settled(slot)
    inProcessOther(p.local!).then(p.other, p.reject)
  }

  /**
   * The stemmed synonym table, built on a thread (the event loop adopts it instead of building it);
   * the thread's answer also brings the noun kinds and static vectors, adopted here.
   */
  synonyms(): Promise<txt.SynonymTable> {
    return this.ask('tables', { tables: true }, txt.synonymTable)
  }

  /**
   * A thread a run's group can be given to: one given fewer than INDEX_QUEUED groups not answered yet
   * (the thread chunks before it builds tables or compiles, so those make it wait for one step of the
   * tables or COMPILES_POSTED compiles at most); null when none is.
   */
  private freeToIndex(): Slot | null {
    if (this.failed || this.closed) return null
    for (const slot of this.slots) {
      let queued = 0
      for (const p of slot.pending.values()) if (p.kind === 'index') queued++
      if (queued < INDEX_QUEUED) return slot
    }
    return null
  }

  /** A request other than a compile, sent at once (ahead of the compiles held; `to`: that thread); in process without a thread. */
  private ask<T>(
    kind: 'index' | 'tables',
    request: { index?: string[]; tables?: boolean; claim?: Int32Array; prefix?: string },
    local: () => T,
    to?: Slot,
  ): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the compile threads are closed'))
    const slot = to ?? (this.failed ? null : this.slot())
    if (!slot) return inProcessOther(local)
    return new Promise<T>((resolve, reject) => {
      const id = this.nextId++
      this.busy(slot)
      const other = resolve as (answer: unknown) => void
      const text = request.index?.[0] ?? ''
      slot.pending.set(id, { text, texts: request.index, resolve: () => {}, reject, other, local, kind })
      slot.worker.postMessage({ id, text, vectors: false, ...request })
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
   * Starts a thread ahead of a run (as a base's upload begins, and as a run starts) and has it chunk
   * a short text (the tables a run's chunking reads), so the run's first groups do not wait for it
   * (the compile's own tables load with the first compile, after the run). Does nothing while a
   * thread runs, or once threads have failed or are closed.
   */
  warm(): void {
    if (this.failed || this.closed || this.slots.length > 0) return
    this.ask('index', { index: [WARM_TEXT] }, () => [indexSection(WARM_TEXT)]).catch(() => {})
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
      const slot: Slot = {
        worker,
        pending: new Map(),
        posted: 0,
        held: [],
        idle: null,
        stopped: false,
        vectors: false,
      }
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
    this.settled(slot, p.kind === 'index' && p.text !== WARM_TEXT ? (this.opts.runIdleMs ?? 2_000) : Infinity)
    if (msg.type === 'indexed') p.other?.(unpackSections(msg.sections, p.texts ?? []))
    else if (msg.type === 'tables') {
      // The noun kinds and static vectors come with the synonyms: questions read them too, and the
      // event loop takes them instead of reading them (0.1-0.2 s, as a run ends).
      if (msg.hypernyms) txt.prepareHypernyms(msg.hypernyms)
      if (msg.vectors) txt.adoptStaticVectors(msg.vectors)
      slot.vectors = true
      p.other?.(msg.synonyms)
    } else if (msg.type === 'done')
      p.resolve({ bytes: msg.bytes, inputs: msg.inputs, words: msg.words, vectors: msg.vectors })
    else p.reject(new Error(msg.message))
  }

  /** A thread left with nothing to do: no longer keeps the process alive; stops after idleMs (`cap`: runIdleMs after a run's chunking, a build's compiles following at once). */
  private settled(slot: Slot, cap = Infinity): void {
    if (slot.pending.size > 0) return
    slot.worker.unref()
    slot.idle = setTimeout(() => this.stop(slot), Math.min(this.opts.idleMs ?? 10_000, cap))
    ;(slot.idle as { unref?: () => void }).unref?.()
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
