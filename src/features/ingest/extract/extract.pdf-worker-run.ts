import { workerScriptPath } from '../../../platform/concurrency/worker-path.ts'
import { ExtractError, type ExtractErrorCode } from './extract.errors.ts'
import type { ReadResult } from './extract.types.ts'

/** What the PDF worker is sent: the file's bytes, owned by the worker from then on. */
export interface PdfWorkerRead {
  type: 'read'
  bytes: Uint8Array
}

/** A failure as it crosses threads: an `ExtractError` keeps its code, anything else its name. */
export interface PdfFailure {
  code?: ExtractErrorCode
  name: string
  message: string
  cause?: { name: string; message: string }
}

/** Messages the PDF worker posts. */
export type PdfWorkerMsg =
  | { type: 'ready' }
  | { type: 'done'; result: ReadResult }
  | { type: 'error'; failure: PdfFailure }

/** The worker as this file uses it (a Web Worker, or a stand-in in tests). */
export interface PdfWorker {
  postMessage(msg: unknown, transfer?: Transferable[]): void
  terminate(): void
  onmessage: ((e: MessageEvent) => void) | null
  onerror: ((e: ErrorEvent) => void) | null
  addEventListener(type: 'close', listener: (e: Event) => void): void
}

/** How `readPdfInWorker` starts its worker and reports falling back (tests). */
export interface PdfWorkerOptions {
  spawn?: () => PdfWorker
  /** Called with the reason when the worker could not start and the PDF is read in process. */
  onFallback?: (reason: string) => void
}

/**
 * Where the worker script is: beside this file from a checkout; in the compiled executable, where
 * `bun build --compile src/main.ts ... src/features/ingest/extract/extract.pdf-worker.ts` puts it
 * (entry points keep their paths below `src/`). A build without it makes the worker fail to
 * start, and PDFs are then read in process.
 */
export function pdfWorkerPath(moduleUrl: string = import.meta.url): string {
  return workerScriptPath(moduleUrl, 'extract.pdf-worker.ts', 'features/ingest/extract/extract.pdf-worker.ts')
}

/** Starts the PDF worker script (at `path`, by default where `pdfWorkerPath` says). */
export function spawnPdfWorker(path: string = pdfWorkerPath()): PdfWorker {
  return new Worker(path) as unknown as PdfWorker
}

/** Reads a PDF on this thread; pdf.js is loaded only then (the server otherwise never loads it). */
async function readPdfHere(bytes: Uint8Array): Promise<ReadResult> {
  const { readPdf } = await import('./extract.pdf.ts')
  return readPdf(bytes)
}

/**
 * Reads a PDF with `readPdf` on a worker thread, so a large file does not stall the server's event
 * loop; the answer and the errors are the same as in process. The bytes are transferred, not
 * copied: the caller's buffer is normally empty afterwards. One worker per file, terminated once it has
 * answered or failed. A worker that cannot start (its script missing from a build) reads the file
 * in process instead; one that dies while reading fails the extraction, never the server.
 */
export function readPdfInWorker(bytes: Uint8Array, opts: PdfWorkerOptions = {}): Promise<ReadResult> {
  let worker: PdfWorker
  try {
    worker = (opts.spawn ?? spawnPdfWorker)()
  } catch (e) {
    opts.onFallback?.((e as Error)?.message ?? String(e))
    return readPdfHere(bytes)
  }
  return new Promise<ReadResult>((resolve, reject) => {
    let handedOver = false
    let settled = false
    const finish = (then: () => void) => {
      if (settled) return
      settled = true
      worker.terminate()
      then()
    }
    // Until the bytes are handed over they are still ours: a worker that cannot start costs only
    // the thread, and the file is read here instead.
    const stopped = (reason: string) => {
      if (handedOver) finish(() => reject(new Error(`the PDF reader thread stopped (${reason})`)))
      else
        finish(() => {
          opts.onFallback?.(reason)
          readPdfHere(bytes).then(resolve, reject)
        })
    }
    worker.onmessage = (e) => {
      const msg = e.data as PdfWorkerMsg
      if (msg.type === 'ready') {
        if (handedOver) return
        const owned = ownBuffer(bytes)
        try {
          worker.postMessage({ type: 'read', bytes: owned } satisfies PdfWorkerRead, [owned.buffer])
          handedOver = true
        } catch (err) {
          stopped(`the file could not be sent to it: ${(err as Error)?.message ?? err}`)
        }
      } else if (msg.type === 'done') finish(() => resolve(msg.result))
      else finish(() => reject(errorOf(msg.failure)))
    }
    worker.onerror = (e) => {
      e.preventDefault?.()
      stopped(e.message || 'unknown error')
    }
    worker.addEventListener('close', (e) => {
      const code = (e as { code?: unknown }).code
      stopped(typeof code === 'number' ? `it exited with code ${code}` : 'it exited')
    })
  })
}

/** Turns a thrown value into what crosses to the main thread. */
export function failureOf(err: unknown): PdfFailure {
  const e = err as { name?: unknown; message?: unknown; cause?: unknown } | null
  const failure: PdfFailure = {
    name: typeof e?.name === 'string' ? e.name : 'Error',
    message: typeof e?.message === 'string' ? e.message : String(err),
  }
  if (err instanceof ExtractError) {
    failure.code = err.code
    const cause = err.cause as { name?: unknown; message?: unknown } | undefined
    if (cause && typeof cause.message === 'string') {
      failure.cause = { name: typeof cause.name === 'string' ? cause.name : 'Error', message: cause.message }
    }
  }
  return failure
}

/** The error the main thread throws for a failure the worker reported: the one `readPdf` threw. */
export function errorOf(f: PdfFailure): Error {
  if (f.code) {
    const cause = f.cause ? Object.assign(new Error(f.cause.message), { name: f.cause.name }) : undefined
    return new ExtractError(f.code, f.message, cause)
  }
  return Object.assign(new Error(f.message), { name: f.name })
}

/** The bytes in a buffer of their own, so transferring it hands over nothing else. */
function ownBuffer(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  const whole =
    bytes.buffer instanceof ArrayBuffer &&
    bytes.byteOffset === 0 &&
    bytes.byteLength === bytes.buffer.byteLength
  return whole ? (bytes as Uint8Array<ArrayBuffer>) : bytes.slice()
}
