import type { ThreadWorker } from '../../../platform/concurrency/thread-worker'
import { workerScriptPath } from '../../../platform/concurrency/worker-path'

/** What the encoder thread is sent: texts to embed. */
export interface EncoderRequest {
  id: number
  texts: string[]
  /** Background work (a base's passages): the thread computes a question's texts before it. */
  bulk?: boolean
}

/** What it answers: one unit-length vector per text, or why it could not (`fatal`: it never will, the model did not load). */
export type EncoderReply =
  | { type: 'done'; id: number; vectors: Float32Array[] }
  | { type: 'error'; id: number; message: string; fatal?: boolean }

/** The thread as this file uses it (a Web Worker, or a stand-in in tests). */
export type EncoderWorker = ThreadWorker<EncoderRequest>

/** How an EncoderThread starts its thread, when it stops an idle one, and whom it tells of a failure. */
export interface EncoderThreadOptions {
  spawn?: () => EncoderWorker
  /** Milliseconds without work before the thread (and the model's memory) is let go. */
  idleMs: number
  /**
   * The same after a bulk request (a base's passages encoded in the background): a job's requests
   * follow each other closely, and once it ends no question may come for a long time, so the
   * thread's memory is let go soon (BULK_IDLE_MS by default) instead of after `idleMs`.
   */
  bulkIdleMs?: number
  /**
   * Questions' requests the thread may hold at once; one more is refused at once (the caller
   * answers without the encoder), so a burst of questions neither queues behind the model nor holds
   * their texts. Bulk requests are not counted nor refused.
   */
  maxPending?: number
  /** Told once, with the reason, when the thread fails: the encoder is then off for the process. */
  onFailure?: (reason: string) => void
  setTimer?: (fn: () => void, ms: number) => unknown
  clearTimer?: (timer: unknown) => void
}

/**
 * Where the worker script is: beside this file from a checkout; in the compiled executable, where
 * scripts/build.ts's entry point `src/features/engine/support/encoder-worker.ts` puts it.
 */
export function encoderWorkerPath(moduleUrl: string = import.meta.url): string {
  return workerScriptPath(moduleUrl, 'encoder-worker.ts', 'features/engine/support/encoder-worker.ts')
}

/** How long a thread whose last request was bulk work stays idle before it is stopped, by default. */
export const BULK_IDLE_MS = 10_000

/** Requests held at once by default: a few questions' worth (each is a fraction of a second). */
const MAX_PENDING = 8

interface Pending {
  resolve: (vectors: Float32Array[]) => void
  reject: (e: Error) => void
  bulk: boolean
}

/**
 * The built-in sentence encoder (encoder-worker.ts) on one thread, so the model's work leaves the
 * event loop free. The thread starts on first use, never keeps the process alive while idle, and
 * is stopped after `idleMs` without work, which gives the model's memory back; the next request
 * starts a new one. A thread that cannot start, fails or dies turns the encoder off for the
 * process: every request after it rejects at once (the caller answers without it).
 */
export class EncoderThread {
  private worker: EncoderWorker | null = null
  private readonly pending = new Map<number, Pending>()
  private idle: unknown = null
  private nextId = 1
  private failed: string | null = null
  private closed = false
  private answered = false
  /** The idle time the last request asked for (a question's, or bulk work's). */
  private idleAfter: number

  constructor(private readonly opts: EncoderThreadOptions) {
    this.idleAfter = opts.idleMs
  }

  /** Whether the thread has answered since it started: its model is loaded (a start takes about a tenth of a second). */
  get loaded(): boolean {
    return this.answered && this.worker !== null
  }

  /** Whether the encoder can still be asked (it has not failed and is not closed). */
  get available(): boolean {
    return !this.failed && !this.closed
  }

  /**
   * One unit-length vector per text. `bulk`: background work (a base's passages), after which an
   * idle thread is stopped after `bulkIdleMs`, not `idleMs`, unless a question's request follows.
   */
  embed(texts: string[], bulk = false): Promise<Float32Array[]> {
    if (this.closed) return Promise.reject(new Error('the encoder is closed'))
    if (this.failed) return Promise.reject(new Error(`the encoder is off: ${this.failed}`))
    // Questions are refused past maxPending; bulk work is not (a job sends its next request once
    // the last is answered, so it holds one place at most, and it would otherwise fail whenever
    // questions fill the queue).
    if (!bulk && this.questionsPending() >= (this.opts.maxPending ?? MAX_PENDING))
      return Promise.reject(new Error('the encoder is busy'))
    const worker = this.start()
    if (!worker) return Promise.reject(new Error(`the encoder is off: ${this.failed}`))
    return new Promise((resolve, reject) => {
      const id = this.nextId++
      if (this.pending.size === 0) {
        this.clearIdle()
        worker.ref()
      }
      this.pending.set(id, { resolve, reject, bulk })
      this.idleAfter = bulk ? (this.opts.bulkIdleMs ?? BULK_IDLE_MS) : this.opts.idleMs
      worker.postMessage({ id, texts, bulk } satisfies EncoderRequest)
    })
  }

  private questionsPending(): number {
    let n = 0
    for (const p of this.pending.values()) if (!p.bulk) n++
    return n
  }

  /** Stops the thread; what it still had fails. */
  close(): void {
    this.closed = true
    this.stop()
    this.rejectAll('the encoder is closed')
  }

  private start(): EncoderWorker | null {
    if (this.worker) return this.worker
    try {
      const worker = (
        this.opts.spawn ?? (() => new Worker(encoderWorkerPath()) as unknown as EncoderWorker)
      )()
      worker.onmessage = (e) => this.answer(e.data as EncoderReply)
      worker.onerror = (e) => {
        e.preventDefault?.()
        this.fail(e.message || 'unknown error')
      }
      worker.addEventListener('close', () => {
        if (this.worker === worker) this.fail('it exited')
      })
      worker.unref()
      this.worker = worker
      return worker
    } catch (e) {
      this.fail((e as Error)?.message ?? String(e))
      return null
    }
  }

  private answer(msg: EncoderReply): void {
    if (msg.type === 'error' && msg.fatal) {
      this.fail(msg.message)
      return
    }
    const p = this.pending.get(msg.id)
    if (!p) return
    this.pending.delete(msg.id)
    if (this.pending.size === 0 && this.worker) {
      this.worker.unref()
      const timer = (this.opts.setTimer ?? setTimeout)(() => this.stop(), this.idleAfter)
      ;(timer as { unref?: () => void }).unref?.()
      this.idle = timer
    }
    if (msg.type === 'done') {
      this.answered = true
      p.resolve(msg.vectors)
    } else p.reject(new Error(msg.message))
  }

  private clearIdle(): void {
    if (this.idle)
      (this.opts.clearTimer ?? ((t) => clearTimeout(t as Parameters<typeof clearTimeout>[0])))(this.idle)
    this.idle = null
  }

  /** Stops the thread on purpose (idle, or closing): its exit is not a failure. */
  private stop(): void {
    this.clearIdle()
    const worker = this.worker
    this.worker = null
    this.answered = false
    worker?.terminate()
  }

  private fail(reason: string): void {
    if (this.closed || this.failed) return
    this.failed = reason
    this.opts.onFailure?.(reason)
    this.stop()
    this.rejectAll(`the encoder is off: ${reason}`)
  }

  private rejectAll(message: string): void {
    for (const p of this.pending.values()) p.reject(new Error(message))
    this.pending.clear()
  }
}
