import { afterAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { ExtractError } from '../../../src/features/ingest/extract/extract.errors.ts'
import { readPdf } from '../../../src/features/ingest/extract/extract.pdf.ts'
import {
  type PdfWorker,
  pdfWorkerPath,
  readPdfInWorker,
  spawnPdfWorker,
} from '../../../src/features/ingest/extract/extract.pdf-worker-run.ts'
import type { ReadResult } from '../../../src/features/ingest/extract/extract.types.ts'
import { bytesOf } from './docs.ts'

const PDF = 'pdf/'
const MANUAL = `${PDF}Unstructured-IO_unstructured__DA-619p.pdf`
const TWO_COLUMN = `${PDF}Unstructured-IO_unstructured__multi-column-2p.pdf`
const SAMPLE = `${PDF}deepset-ai_haystack__sample_pdf_1.pdf`
const ENCRYPTED = `${PDF}Unstructured-IO_unstructured__password.pdf`
const IMAGE_ONLY = `${PDF}deepset-ai_haystack__non_text_searchable.pdf`

const scratch = mkdtempSync(join(tmpdir(), 'engram-pdf-worker-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

/** The outcome of a read: its result, or the name, code and message of what it threw. */
async function outcome(read: Promise<ReadResult>) {
  try {
    return { result: await read }
  } catch (e) {
    const err = e as ExtractError
    return {
      error: { name: err.name, code: err.code, message: err.message, isExtract: e instanceof ExtractError },
    }
  }
}

/** A real worker whose `terminate` calls are counted. */
function countingSpawn(path?: string) {
  const counts = { spawned: 0, terminated: 0 }
  const spawn = (): PdfWorker => {
    const w = spawnPdfWorker(path)
    counts.spawned++
    const terminate = w.terminate.bind(w)
    w.terminate = () => {
      counts.terminated++
      terminate()
    }
    return w
  }
  return { spawn, counts }
}

/**
 * Runs `work` while a 1 ms timer loop ticks on this thread; answers the largest gap between two
 * ticks (up to the end of the work) and how long the work took.
 */
async function stallDuring<T>(work: () => Promise<T>): Promise<{ value: T; maxGap: number; took: number }> {
  let last = performance.now()
  let maxGap = 0
  let running = true
  const tick = () => {
    const now = performance.now()
    maxGap = Math.max(maxGap, now - last)
    last = now
    if (running) setTimeout(tick, 1)
  }
  setTimeout(tick, 1)
  const start = performance.now()
  const value = await work()
  const end = performance.now()
  running = false
  return { value, maxGap: Math.max(maxGap, end - last), took: end - start }
}

/** A worker stand-in that says it is ready, then does what the test makes it do. */
class FakeWorker implements PdfWorker {
  onmessage: ((e: MessageEvent) => void) | null = null
  onerror: ((e: ErrorEvent) => void) | null = null
  sent: unknown[] = []
  terminated = false
  private closers: ((e: Event) => void)[] = []
  postMessage(msg: unknown): void {
    this.sent.push(msg)
  }
  terminate(): void {
    this.terminated = true
  }
  addEventListener(_type: 'close', listener: (e: Event) => void): void {
    this.closers.push(listener)
  }
  emit(data: unknown): void {
    this.onmessage?.({ data } as MessageEvent)
  }
  fail(message: string): void {
    this.onerror?.({ message, preventDefault: () => {} } as ErrorEvent)
  }
  close(code: number): void {
    for (const c of this.closers) c(Object.assign(new Event('close'), { code }))
  }
}

describe('PDF extraction on a worker thread', () => {
  test('a normal PDF, the two-column paper and failing PDFs read exactly as in process', async () => {
    for (const path of [SAMPLE, TWO_COLUMN, ENCRYPTED, IMAGE_ONLY]) {
      const { spawn, counts } = countingSpawn()
      const inProcess = await outcome(readPdf(bytesOf(path)))
      const inWorker = await outcome(readPdfInWorker(bytesOf(path), { spawn }))
      expect(inWorker).toStrictEqual(inProcess)
      expect(counts).toEqual({ spawned: 1, terminated: 1 })
    }
  })

  test('the password-protected PDF still fails with pdf_encrypted through the worker', async () => {
    const got = await outcome(readPdfInWorker(bytesOf(ENCRYPTED)))
    expect(got.error).toEqual({
      name: 'ExtractError',
      code: 'pdf_encrypted',
      message: 'The PDF is password-protected. Remove the password and upload it again.',
      isExtract: true,
    })
  })

  test('bytes that are not a PDF fail with the same corrupt_file message as in process', async () => {
    const junk = () => new TextEncoder().encode('%PDF-1.7\nthis is not really a PDF at all\n%%EOF')
    const inProcess = await outcome(readPdf(junk()))
    expect(inProcess.error?.code).toBe('corrupt_file')
    expect(await outcome(readPdfInWorker(junk()))).toStrictEqual(inProcess)
  })

  test('the bytes are transferred to the worker, not copied', async () => {
    const bytes = bytesOf(TWO_COLUMN)
    expect(bytes.byteLength).toBeGreaterThan(0)
    await readPdfInWorker(bytes)
    expect(bytes.byteLength).toBe(0)
  })

  test('the main thread keeps ticking while the 619-page manual is read in the worker', async () => {
    const inProcess = await stallDuring(() => readPdf(bytesOf(MANUAL)))
    const { spawn, counts } = countingSpawn()
    const inWorker = await stallDuring(() => readPdfInWorker(bytesOf(MANUAL), { spawn }))
    expect(inWorker.value).toStrictEqual(inProcess.value)
    expect(inWorker.value.pages).toBe(619)
    expect(counts).toEqual({ spawned: 1, terminated: 1 })
    // In process, pdf.js holds the thread for most of the read; through the worker the longest
    // stall (thread start, receiving the result) is a small fraction of that.
    console.log(
      `619-page PDF: in process ${inProcess.took.toFixed(0)} ms, max stall ${inProcess.maxGap.toFixed(0)} ms; ` +
        `worker ${inWorker.took.toFixed(0)} ms, max stall ${inWorker.maxGap.toFixed(0)} ms`,
    )
    expect(inWorker.maxGap).toBeLessThan(inProcess.maxGap / 5)
    // The manual is read twice; on a busy 2-vCPU machine that passes bun's 5 s default.
  }, 60_000)

  test('a worker script that does not exist falls back to reading in process', async () => {
    const missing = pathToFileURL(join(scratch, 'no-such-worker.ts')).href
    const { spawn, counts } = countingSpawn(missing)
    const reasons: string[] = []
    const got = await readPdfInWorker(bytesOf(SAMPLE), { spawn, onFallback: (r) => reasons.push(r) })
    expect(got).toStrictEqual(await readPdf(bytesOf(SAMPLE)))
    expect(reasons).toHaveLength(1)
    expect(reasons[0]).toContain('no-such-worker.ts')
    expect(counts).toEqual({ spawned: 1, terminated: 1 })
  })

  test('a worker that cannot even be constructed falls back to reading in process', async () => {
    const reasons: string[] = []
    const spawn = (): PdfWorker => {
      throw new Error('workers are not available')
    }
    const got = await readPdfInWorker(bytesOf(SAMPLE), { spawn, onFallback: (r) => reasons.push(r) })
    expect(got.pages).toBe(4)
    expect(reasons).toEqual(['workers are not available'])
  })

  test('a worker that exits while reading fails the extraction and the process carries on', async () => {
    const script = join(scratch, 'exits-worker.ts')
    writeFileSync(script, "self.onmessage = () => process.exit(3)\npostMessage({ type: 'ready' })\n")
    const { spawn, counts } = countingSpawn(pathToFileURL(script).href)
    const fallbacks: string[] = []
    const err = await readPdfInWorker(bytesOf(SAMPLE), { spawn, onFallback: (r) => fallbacks.push(r) }).catch(
      (e: Error) => e,
    )
    expect(err).toBeInstanceOf(Error)
    expect((err as Error).message).toBe('the PDF reader thread stopped (it exited with code 3)')
    expect(fallbacks).toEqual([])
    expect(counts.terminated).toBe(1)
  })

  test('an uncaught error in the worker after it started is an extraction error, and it is terminated', async () => {
    const w = new FakeWorker()
    const reading = readPdfInWorker(bytesOf(SAMPLE), { spawn: () => w })
    w.emit({ type: 'ready' })
    expect(w.sent).toHaveLength(1)
    w.fail('out of memory')
    expect(await reading.catch((e: Error) => e.message)).toBe('the PDF reader thread stopped (out of memory)')
    expect(w.terminated).toBe(true)
    // Late events of the terminated worker change nothing.
    w.close(1)
    w.emit({ type: 'done', result: { pieces: [] } })
  })

  test('an error before the worker is ready falls back and terminates the worker', async () => {
    const w = new FakeWorker()
    const reasons: string[] = []
    const reading = readPdfInWorker(bytesOf(SAMPLE), { spawn: () => w, onFallback: (r) => reasons.push(r) })
    w.fail('ModuleNotFound')
    expect((await reading).pages).toBe(4)
    expect(reasons).toEqual(['ModuleNotFound'])
    expect(w.terminated).toBe(true)
    expect(w.sent).toEqual([])
  })

  test('a worker that cannot be sent the bytes falls back and terminates the worker', async () => {
    const w = new FakeWorker()
    w.postMessage = () => {
      throw new Error('DataCloneError')
    }
    const reasons: string[] = []
    const reading = readPdfInWorker(bytesOf(SAMPLE), { spawn: () => w, onFallback: (r) => reasons.push(r) })
    w.emit({ type: 'ready' })
    expect((await reading).pages).toBe(4)
    expect(reasons).toEqual(['the file could not be sent to it: DataCloneError'])
    expect(w.terminated).toBe(true)
  })

  test('the worker script is found beside the runner in a checkout and under /$bunfs/root in the binary', () => {
    expect(existsSync(fileURLToPath(pdfWorkerPath()))).toBe(true)
    expect(pdfWorkerPath('file:///$bunfs/root/engram')).toBe(
      '/$bunfs/root/src/features/ingest/extract/extract.pdf-worker.ts',
    )
  })
})
