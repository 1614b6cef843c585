/**
 * A worker thread as a pool of threads uses it: a Web Worker (Bun's, which can be ref'd and
 * unref'd), or a stand-in in tests. `Req` is what it is sent.
 */
export interface ThreadWorker<Req> {
  postMessage(msg: Req): void
  terminate(): void
  /** Keeps the process alive while the thread has work... */
  ref(): void
  /** ...and not while it is idle. */
  unref(): void
  onmessage: ((e: MessageEvent) => void) | null
  onerror: ((e: ErrorEvent) => void) | null
  addEventListener(type: 'close', listener: (e: Event) => void): void
}
