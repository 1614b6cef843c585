// Memory bombs (issue 18, item 2): every document is read in a child process whose memory is
// capped, so a file that expands past the budget fails with a clear message while this process
// (the server) stays small. The bombs are generated here, a few hundred kilobytes each.
import { afterAll, describe, expect, test } from 'bun:test'
import { readFileSync, writeFileSync } from 'node:fs'
import { ExtractSandbox } from '../../../src/features/ingest/extract/extract.sandbox.ts'
import {
  ExtractError,
  extractText,
  overBudgetMessage,
  tooSlowMessage,
} from '../../../src/features/ingest/extract/extract.ts'
import { docxBomb, loopingPdf, nestedHtml, pdfBomb, pptxBomb, xlsxBomb } from '../../helpers/bombs.ts'

const MB = 1024 * 1024
const BUDGET = 192
// What this process may grow by while children read the bombs: the bombs themselves are a few MB,
// so any real growth means a bomb was read here. Reading them in process takes gigabytes.
const MARGIN = 200 * MB

const sandbox = new ExtractSandbox({ memoryMb: BUDGET })
afterAll(() => sandbox.close())

/** The error `extract` fails with (the test fails if it does not fail). */
async function failure(run: Promise<unknown>): Promise<ExtractError> {
  try {
    await run
  } catch (e) {
    return e as ExtractError
  }
  throw new Error('expected the extraction to fail')
}

/** The kernel's high-water mark of this process's resident memory (Linux), or 0. */
function highWater(): number {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'latin1'))?.[1]
    return kb ? Number(kb) * 1024 : 0
  } catch {
    return 0
  }
}

/**
 * Runs `work` and returns the most resident memory this process held meanwhile: sampled by a timer,
 * and (on Linux) the kernel's high-water mark, reset first, which also sees a reader that would
 * hold the event loop.
 */
async function peakRssDuring<T>(work: () => Promise<T>): Promise<{ result: T; peak: number }> {
  try {
    writeFileSync('/proc/self/clear_refs', '5')
  } catch {}
  let peak = process.memoryUsage.rss()
  const sample = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss())
  }, 5)
  try {
    const result = await work()
    return { result, peak: Math.max(peak, process.memoryUsage.rss(), highWater()) }
  } finally {
    clearInterval(sample)
  }
}

describe('memory bombs', () => {
  test('Office files whose XML expands past the budget are refused from the zip directory, two at once', async () => {
    const bombs = [xlsxBomb(300 * MB), docxBomb(300 * MB), pptxBomb(300 * MB)]
    for (const b of bombs) expect(b.length).toBeLessThan(2 * MB)
    const names = ['bomb.xlsx', 'bomb.docx', 'bomb.pptx']
    const before = process.memoryUsage.rss()
    const { result: errors, peak } = await peakRssDuring(async () => [
      ...(await Promise.all(
        [0, 1].map((i) => failure(sandbox.extract({ bytes: bombs[i]!, filename: names[i]! }))),
      )),
      await failure(sandbox.extract({ bytes: bombs[2]!, filename: names[2]! })),
    ])
    for (const e of errors) {
      expect(e).toBeInstanceOf(ExtractError)
      expect(e.code).toBe('over_memory_budget')
      const mb = Number(/^The file expands to (\d+) MB when unpacked/.exec(e.message)?.[1])
      expect(mb).toBeGreaterThanOrEqual(300)
      expect(e.message).toBe(overBudgetMessage(BUDGET, mb))
    }
    expect(peak - before).toBeLessThan(MARGIN)
  }, 60_000)

  test('bombs under the zip check and a PDF stream bomb are stopped at the budget, two at once; this process stays small', async () => {
    const files = [
      { bytes: xlsxBomb(150 * MB), filename: 'strings.xlsx' },
      { bytes: docxBomb(150 * MB), filename: 'paragraphs.docx' },
      { bytes: pptxBomb(150 * MB), filename: 'slide.pptx' },
      // One page whose FlateDecode content stream inflates to 1 GiB of text operators.
      { bytes: pdfBomb(1024 * MB), filename: 'stream.pdf' },
    ]
    const before = process.memoryUsage.rss()
    const { result: errors, peak } = await peakRssDuring(async () => {
      const out: ExtractError[] = []
      for (let i = 0; i < files.length; i += 2) {
        out.push(...(await Promise.all(files.slice(i, i + 2).map((f) => failure(sandbox.extract(f))))))
      }
      return out
    })
    for (const e of errors) {
      expect(e).toBeInstanceOf(ExtractError)
      expect({ code: e.code, message: e.message }).toEqual({
        code: 'over_memory_budget',
        message: overBudgetMessage(BUDGET),
      })
    }
    expect(overBudgetMessage(BUDGET)).toBe(
      'Reading this file needs more than 192 MB of memory that text extraction may use for one file (setting ingest.extract_memory_mb). Split the file into smaller ones, or ask the operator to raise the limit.',
    )
    expect(peak - before).toBeLessThan(MARGIN)
    // A killed child is not reused: the next file gets a fresh one and reads normally.
    const after = await sandbox.extract({
      bytes: new TextEncoder().encode('A small note after the storm.'),
      filename: 'note.txt',
    })
    expect(after.text).toBe('A small note after the storm.')
  }, 120_000)

  test('a page of half a million nested <div>s is read within the default budget beside a PDF bomb, without overflowing the stack', async () => {
    const roomy = new ExtractSandbox({ memoryMb: 512 })
    try {
      const before = process.memoryUsage.rss()
      const { result, peak } = await peakRssDuring(() =>
        Promise.all([
          roomy.extract({ bytes: nestedHtml(500_000), filename: 'deep.html' }),
          failure(roomy.extract({ bytes: pdfBomb(1024 * MB), filename: 'stream.pdf' })),
        ]),
      )
      const [page, bomb] = result
      expect(page.text).toBe('Deep inside the page there is one sentence.')
      expect(bomb.code).toBe('over_memory_budget')
      expect(peak - before).toBeLessThan(MARGIN)
    } finally {
      roomy.close()
    }
  }, 120_000)

  test('in process, the HTML walker keeps a bounded stack however deep the page is', async () => {
    const r = await extractText({ bytes: nestedHtml(200_000), filename: 'deep.html' })
    expect(r.text).toBe('Deep inside the page there is one sentence.')
  }, 60_000)
})

describe('the extraction sandbox', () => {
  test('reads a small plain file in this process, and a page or a large file in a child', async () => {
    const own = new ExtractSandbox({ memoryMb: 256 })
    try {
      const note = new TextEncoder().encode('# Title\n\nSome text of a note.')
      expect(await own.extract({ bytes: note, filename: 'a.md' })).toEqual(
        await extractText({ bytes: note, filename: 'a.md' }),
      )
      expect(await own.extract({ bytes: note, filename: 'a.csv' })).toEqual(
        await extractText({ bytes: note, filename: 'a.csv' }),
      )
      expect(own.children).toBe(0)
      const page = new TextEncoder().encode('<p>Some text of a page.</p>')
      expect((await own.extract({ bytes: page, filename: 'a.html' })).text).toBe('Some text of a page.')
      expect(own.children).toBe(1)
      // Plain text up to 256 KiB is read here; Markdown past 64 KiB, and text past 256 KiB, in a child.
      const midText = new TextEncoder().encode('A line of a long note.\n'.repeat(4000))
      expect(await own.extract({ bytes: midText, filename: 'mid.txt' })).toEqual(
        await extractText({ bytes: midText, filename: 'mid.txt' }),
      )
      expect(own.children).toBe(1)
      const big = new TextEncoder().encode('A line of a long note.\n'.repeat(12000))
      expect((await own.extract({ bytes: big, filename: 'big.txt' })).text).toContain(
        'A line of a long note.',
      )
      expect((await own.extract({ bytes: midText, filename: 'mid.md' })).text).toContain(
        'A line of a long note.',
      )
      expect(own.children).toBe(1)
      const seen: number[] = []
      const counted = new ExtractSandbox({ memoryMb: 256, onMeasured: (peak) => seen.push(peak) })
      try {
        await counted.extract({ bytes: midText, filename: 'mid.txt' })
        expect(counted.children).toBe(0)
        await counted.extract({ bytes: big, filename: 'big.txt' })
        await counted.extract({ bytes: midText, filename: 'mid.md' })
        expect(seen).toHaveLength(2)
      } finally {
        counted.close()
      }
    } finally {
      own.close()
    }
  }, 60_000)

  test('reuses one child for consecutive small files and answers as extractText does', async () => {
    const own = new ExtractSandbox({ memoryMb: 256, inProcessBytes: 0 })
    try {
      const bytes = new TextEncoder().encode('# Title\n\nSome text of a note.')
      const a = await own.extract({ bytes, filename: 'a.md' })
      const b = await own.extract({ bytes, filename: 'b.md' })
      expect(a).toEqual(await extractText({ bytes, filename: 'a.md' }))
      expect(b).toEqual(a)
      expect(own.children).toBe(1)
      // An ExtractError crosses the process boundary with its code and message.
      const e = await failure(own.extract({ bytes: loopingPdf(), filename: 'loop.pdf' }))
      expect(e).toBeInstanceOf(ExtractError)
      expect(e.message).toBe(
        (await failure(extractText({ bytes: loopingPdf(), filename: 'loop.pdf' }))).message,
      )
      expect(e.code).toBe('corrupt_file')
      expect(own.children).toBe(1)
    } finally {
      own.close()
    }
    expect(own.children).toBe(0)
  }, 60_000)

  test('a file that keeps its reader busy past the time limit is stopped with a worded error', async () => {
    // htmlparser2 keeps its open tags in an array it shifts at the front: a million nested
    // elements cost seconds of CPU on any machine, well past a one-second limit.
    const hasty = new ExtractSandbox({ memoryMb: 512, timeoutMs: 1000 })
    try {
      const e = await failure(hasty.extract({ bytes: nestedHtml(1_000_000), filename: 'deep.html' }))
      expect({ code: e.code, message: e.message }).toEqual({ code: 'too_slow', message: tooSlowMessage(1) })
      expect(tooSlowMessage(600)).toBe(
        'Reading this file took longer than 600 s, the most text extraction may take for one file (setting ingest.extract_timeout_seconds). Split the file into smaller ones, or ask the operator to raise the limit.',
      )
      expect(hasty.children).toBe(0)
    } finally {
      hasty.close()
    }
  }, 60_000)

  test('extracts in this process and says why when no child can start', async () => {
    const reasons: string[] = []
    const broken = new ExtractSandbox({
      memoryMb: 256,
      command: ['/nonexistent/engram-extract-child'],
      inProcessBytes: 0,
      onFallback: (r) => reasons.push(r),
    })
    const r = await broken.extract({
      bytes: new TextEncoder().encode('Read here instead.'),
      filename: 'a.txt',
    })
    expect(r.text).toBe('Read here instead.')
    expect(reasons).toHaveLength(1)
  })
})
