// The compile threads' pool (compile-threads.ts): its options, its slots and requests, and how a
// request is made in process.
import type { ThreadWorker } from '../../../platform/concurrency/thread-worker'
import { workerScriptPath } from '../../../platform/concurrency/worker-path'
import { type CompiledSection, type CompileRequest, compileSection } from './compile-messages'
import type { IndexedSection } from './index-section'

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
export const WARM_TEXT = 'The first cartridge warms the thread. It was compiled in 1973 by Engram.'

export interface Pending {
  text: string
  resolve: (section: CompiledSection) => void
  reject: (e: Error) => void
  /** A request other than a compile: its answer goes to `other`; `local` makes it in process. */
  other?: (answer: unknown) => void
  local?: () => unknown
  /** Which request other than a compile it is. */
  kind?: 'index' | 'tables'
}

/** An index request held until a thread is free for it. */
export interface HeldIndex {
  texts: string[]
  resolve: (sections: IndexedSection[]) => void
  reject: (e: Error) => void
}

export interface Slot {
  worker: CompileWorker
  pending: Map<number, Pending>
  /** Compiles posted to the thread and not answered yet (at most COMPILES_POSTED). */
  posted: number
  /** Compiles held here until the thread has fewer posted: an index request passes them. */
  held: CompileRequest[]
  idle: ReturnType<typeof setTimeout> | null
  stopped: boolean
  /** Whether the thread has answered once (it has started and loaded its code). */
  answered: boolean
  /** Whether the thread has the event loop's static vectors (sent, or the thread read them). */
  vectors: boolean
}

export function inProcess(text: string, vectors: boolean): Promise<CompiledSection> {
  return new Promise((resolve) => resolve(compileSection(text, vectors)))
}

/** A request other than a compile made in process now (its error, the promise's). */
export function inProcessOther<T>(local: () => T): Promise<T> {
  return new Promise((resolve) => resolve(local()))
}
