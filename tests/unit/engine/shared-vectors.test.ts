import { afterEach, describe, expect, test } from 'bun:test'
import {
  type CompileReply,
  type CompileRequest,
  CompileThreads,
  compileSection,
  compileWorkerPath,
} from '../../../src/features/engine/cart/index'
import { staticVectors, staticVectorTable } from '../../../src/features/engine/text/index'
import { inFreshProcess, ROOT } from '../../helpers/fresh-process'
import { articleTexts, FakeCompileWorker } from './fixture'

// The static vectors (about 20 MB) are read once and shared by the event loop and the compile
// threads, instead of each thread reading a copy of its own (issue 38: the 1x peak).

let pool: CompileThreads | null = null
afterEach(() => {
  pool?.close()
  pool = null
})

/** Asks a real compile thread one request and returns its answer. */
async function askThread(request: CompileRequest): Promise<CompileReply> {
  const worker = new Worker(compileWorkerPath())
  try {
    const reply = new Promise<CompileReply>((resolve) => {
      worker.onmessage = (e) => resolve(e.data as CompileReply)
    })
    worker.postMessage(request)
    return await reply
  } finally {
    worker.terminate()
  }
}

describe('static vectors shared across threads', () => {
  test("a table's arrays all lie in one SharedArrayBuffer", () => {
    const t = staticVectorTable()
    const buffers = new Set([t.scales, t.values, t.vocab, t.starts, t.stop, t.slots].map((a) => a.buffer))
    expect(buffers.size).toBe(1)
    expect([...buffers][0]).toBeInstanceOf(SharedArrayBuffer)
  })

  test('a compile thread embeds with the table it is sent, reading none of its own', async () => {
    // A table whose every vector is zero: the thread's vectors are all zero only if it used this one.
    const zero = staticVectorTable()
    zero.values.fill(0)
    const text = articleTexts[0]!
    const msg = await askThread({ id: 1, text, vectors: true, staticVectors: zero })
    if (msg.type !== 'done') throw new Error(`unexpected ${msg.type}`)
    expect(msg.vectors!.list.length).toBeGreaterThan(0)
    expect(msg.vectors!.list.every((v) => v.every((x) => x === 0))).toBe(true)
    // Without a table it reads the file: the vectors compiling in process gives.
    const own = await askThread({ id: 2, text, vectors: true })
    if (own.type !== 'done') throw new Error(`unexpected ${own.type}`)
    expect(own.vectors!.list.map((v) => [...v])).toEqual(
      compileSection(text, true).vectors!.list.map((v) => [...v]),
    )
  })

  test("the thread's tables answer shares its static vectors' memory with the event loop", async () => {
    const msg = await askThread({ id: 1, text: '', vectors: false, tables: true })
    if (msg.type !== 'tables') throw new Error(`unexpected ${msg.type}`)
    expect(msg.vectors!.values.buffer).toBeInstanceOf(SharedArrayBuffer)
  })

  test("each thread's first compile that embeds brings the event loop's table; later ones do not", async () => {
    staticVectors() // the event loop has read its table
    const workers: FakeCompileWorker[] = []
    pool = new CompileThreads({
      threads: 1,
      staticVectors: true,
      spawn: () => {
        workers.push(new FakeCompileWorker())
        return workers.at(-1)!
      },
    })
    pool.compile(articleTexts[0]!).catch(() => {})
    pool.compile(articleTexts[1]!).catch(() => {})
    const sent = workers[0]!.sent
    expect(sent).toHaveLength(2)
    expect(sent[0]!.staticVectors).toBe(staticVectors())
    expect(sent[1]!.staticVectors).toBeUndefined()
    const fake = new FakeCompileWorker()
    const noVectors = new CompileThreads({ threads: 1, spawn: () => fake })
    noVectors.compile(articleTexts[0]!).catch(() => {})
    expect(fake.sent[0]!.staticVectors).toBeUndefined()
    noVectors.close()
  })

  test('an event loop that has not read the table sends none and does not read it: the thread reads its own', () => {
    // A fresh process, whose tables nothing has read yet (as after a first run: the tables follow on the thread).
    const run = inFreshProcess(
      `import { CompileThreads } from '${ROOT}/src/features/engine/cart/index'
       import * as text from '${ROOT}/src/features/engine/text/index'
       import { FakeWorker } from '${ROOT}/tests/helpers/fake-worker'
       const w = new FakeWorker()
       const pool = new CompileThreads({ threads: 1, staticVectors: true, spawn: () => w as never })
       pool.compile('Tesla was born in 1856.').catch(() => {})
       pool.compile('He died in 1943.').catch(() => {})
       console.log(JSON.stringify({ sent: w.sent.map((r) => r.vectors && !!r.staticVectors), read: text.loadedStaticVectors() !== null }))
       pool.close()`,
    )
    expect(run.stderr).toBe('')
    expect(JSON.parse(run.stdout)).toEqual({ sent: [false, false], read: false })
  })
})
