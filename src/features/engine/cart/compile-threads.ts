import * as txt from '../text/index'
import type { CompiledSection, CompileReply, CompileRequest } from './compile-messages'
import {
  type CompileThreadsOptions,
  type CompileWorker,
  compileWorkerPath,
  type HeldIndex,
  inProcess,
  inProcessOther,
  type Slot,
  WARM_TEXT,
} from './compile-slots'
import { type IndexedSection, indexSection } from './index-section'

export { type CompileThreadsOptions, type CompileWorker, compileWorkerPath } from './compile-slots'

/** A run's groups a thread may have been given and not answered yet, beyond which the next is chunked in process. */
const INDEX_QUEUED = 2

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
  /** A run's index requests waiting for a thread free for them (or their caller's `now()`). */
  private readonly heldIndex: HeldIndex[] = []
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
      // The first compile that embeds brings the event loop's table (shared memory, not a copy).
      if (vectors && !slot.vectors) request.staticVectors = txt.staticVectors()
      if (vectors) slot.vectors = true
      if (slot.posted < COMPILES_POSTED) this.post(slot, request)
      else slot.held.push(request)
    })
  }

  /**
   * Sections' texts chunked for the index (indexSection's results, in order): on a thread ahead of
   * the compiles it holds, so that a run's next group is chunked while the event loop writes this
   * one, when a thread is free for it (freeToIndex). Else the request is held: sent to a thread as
   * soon as one is free, or chunked here when its caller wants it first (the promise's `now()`, which
   * a run calls as it comes to the group). A run's first groups would otherwise wait for the thread
   * to start and build the synonym table (0.3-0.7 s, most of a small run), for chunking that takes a
   * few milliseconds a group here; and chunking here at once took the event loop from its writes
   * for groups a thread would have chunked before they were wanted.
   */
  index(texts: string[]): Promise<IndexedSection[]> & { now: () => void } {
    const local = () => texts.map(indexSection)
    const slot = this.freeToIndex()
    const none = { now() {} }
    if (slot || this.closed)
      return Object.assign(this.ask('index', { index: texts }, local, slot ?? undefined), none)
    // Held only while a thread is there to answer (and so to take it, or to free one for it).
    if (this.failed || this.slots.length === 0) return Object.assign(inProcessOther(local), none)
    let held: HeldIndex | undefined
    const promise = new Promise<IndexedSection[]>((resolve, reject) => {
      held = { texts, resolve, reject }
      this.heldIndex.push(held)
    })
    const now = () => {
      const at = this.heldIndex.indexOf(held!)
      if (at < 0) return
      this.heldIndex.splice(at, 1)
      inProcessOther(local).then(held!.resolve, held!.reject)
    }
    return Object.assign(promise, { now })
  }

  /** Sends held index requests to a thread while one is free for them. */
  private sendHeld(): void {
    for (let slot = this.freeToIndex(); slot && this.heldIndex.length > 0; slot = this.freeToIndex()) {
      const held = this.heldIndex.shift()!
      const local = () => held.texts.map(indexSection)
      this.ask('index', { index: held.texts }, local, slot).then(held.resolve, held.reject)
    }
  }

  /**
   * The stemmed synonym table, built on a thread (the event loop adopts it instead of building it);
   * the thread's answer also brings the noun kinds and static vectors, adopted here.
   */
  synonyms(): Promise<txt.SynonymTable> {
    return this.ask('tables', { tables: true }, txt.synonymTable)
  }

  /**
   * A thread a run's group can be chunked on without a long wait: started (it has answered), not
   * building the synonym table, given fewer than INDEX_QUEUED groups not answered yet (its compiles
   * make it wait for at most COMPILES_POSTED); null when none is.
   */
  private freeToIndex(): Slot | null {
    if (this.failed || this.closed) return null
    for (const slot of this.slots) {
      if (!slot.answered) continue
      let queued = 0
      let tables = false
      for (const p of slot.pending.values()) {
        if (p.kind === 'index') queued++
        else if (p.kind === 'tables') tables = true
      }
      if (!tables && queued < INDEX_QUEUED) return slot
    }
    return null
  }

  /** A request other than a compile, sent at once (ahead of the compiles held; `to`: that thread); in process without a thread. */
  private ask<T>(
    kind: 'index' | 'tables',
    request: { index?: string[]; tables?: boolean },
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
      slot.pending.set(id, { text: '', resolve: () => {}, reject, other, local, kind })
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
   * so the run's first groups do not wait for it (the compile's own tables load with the first
   * compile, after the run). Does nothing once threads have failed or are closed.
   */
  warm(): void {
    if (this.failed || this.closed) return
    this.ask('index', { index: [WARM_TEXT] }, () => [indexSection(WARM_TEXT)]).catch(() => {})
  }

  /** Stops every thread; what they still had fails. */
  close(): void {
    this.closed = true
    for (const held of this.heldIndex.splice(0)) held.reject(new Error('the compile threads are closed'))
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
        answered: false,
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
    slot.answered = true
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
    this.sendHeld()
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
    for (const held of this.heldIndex.splice(0))
      inProcessOther(() => held.texts.map(indexSection)).then(held.resolve, held.reject)
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
