import { afterEach, describe, expect, test } from 'bun:test'
import { migrations } from '../../../migrations/index'
import {
  type CompileReply,
  type CompileRequest,
  CompileThreads,
  type CompileWorker,
  compileSection,
  compileWorkerPath,
  indexSection,
  packSections,
  sectionPassages,
  unpackSections,
} from '../../../src/features/engine/cart/index'
import { ftsRow, ftsToken } from '../../../src/features/engine/engine.fts.repo'
import { Engine } from '../../../src/features/engine/engine.service'
import {
  prepareHypernyms,
  type SynonymTable,
  staticVectorTable,
  synonymTable,
} from '../../../src/features/engine/text/index'
import { openDatabase } from '../../../src/platform/db/db'
import { migrate } from '../../../src/platform/db/migrate'
import { inFreshProcess, ROOT } from '../../helpers/fresh-process'
import { articleTexts, docs, FakeCompileWorker, memoryStore, onboardDoc } from './fixture'

// A run's sections are chunked on the compile thread (indexSection) while the event loop writes the
// group before, once the thread is free for it (in process before); the deferred build's compiles,
// which may be many, wait behind a run's requests.

const texts = articleTexts

let pool: CompileThreads | null = null
afterEach(() => {
  pool?.close()
  pool = null
})

/** A pool of one thread stood in for by FakeCompileWorkers (one each time it starts a thread), and those workers. */
function fakePool(): { threads: CompileThreads; workers: FakeCompileWorker[] } {
  const workers: FakeCompileWorker[] = []
  const threads = new CompileThreads({
    threads: 1,
    spawn: () => {
      const w = new FakeCompileWorker()
      workers.push(w)
      return w
    },
  })
  pool = threads
  return { threads, workers }
}

describe("a run's chunking on the compile thread", () => {
  test('gives the passages and FTS5 rows chunking in process gives, on a real thread', async () => {
    pool = new CompileThreads({ threads: 1 })
    // Started and done with the synonym table: free to chunk a run's groups.
    await pool.synonyms()
    const chunked = await pool.index(texts)
    chunked.forEach((c, i) => {
      const local = sectionPassages(texts[i]!)
      expect(c.passages.map(({ terms, ...p }) => p)).toEqual(local.map(({ terms, ...p }) => p))
      for (const key of [1, 37])
        expect(c.fts.map((f) => ftsRow(key, f))).toEqual(
          local.map((p) => p.terms.map((t) => ftsToken(key, t)).join(' ')),
        )
    })
    expect(indexSection(texts[0]!)).toEqual(chunked[0]!)
  })

  test('packs a group for the event loop and unpacks it as chunked: empty sections and rows of no term too', () => {
    // A section of nothing, one of stop words only (an FTS5 row of no term), and two articles.
    const group = ['', 'It is what it was.\n\nAnd so it is.', texts[0]!, texts[1]!]
    for (const prefix of ['', '37x']) {
      const chunked = group.map((text) => indexSection(text, prefix))
      expect(chunked[1]!.fts.map((f) => f.count)).toEqual([0])
      const packed = packSections(chunked, prefix)
      expect(unpackSections(packed, group)).toEqual(chunked)
    }
    expect(unpackSections(packSections([]), [])).toEqual([])
  })

  test('goes to the thread ahead of the compiles it holds back', async () => {
    const { threads, workers } = fakePool()
    // The thread has started (it answered the warm-up chunking).
    threads.warm()
    const warmUp = workers[0]!.sent[0]!
    workers[0]!.reply({
      type: 'indexed',
      id: warmUp.id,
      sections: packSections(warmUp.index!.map((text) => indexSection(text))),
    })
    workers[0]!.sent = []
    const compiles = texts.map((t) => threads.compile(t))
    for (const c of compiles) c.catch(() => {})
    const chunked = threads.index([texts[0]!])
    const sent = () => workers[0]!.sent.map((m) => (m.index ? 'index' : texts.indexOf(m.text)))
    // Two compiles at a time: the third waits here, the run's request does not.
    expect(sent()).toEqual([0, 1, 'index'])
    const [first, , index] = workers[0]!.sent
    workers[0]!.reply({ type: 'indexed', id: index!.id, sections: packSections([indexSection(texts[0]!)]) })
    expect(await chunked).toEqual([indexSection(texts[0]!)])
    workers[0]!.reply({ type: 'done', id: first!.id, ...compileSection(texts[0]!) })
    await compiles[0]
    expect(sent()).toEqual([0, 1, 'index', 2])
  })

  test('goes to the thread while it starts or builds the tables, up to eight groups; the ninth is made here', async () => {
    const { threads, workers } = fakePool()
    const kinds = () => workers[0]!.sent.map((m) => (m.tables ? 'tables' : m.index ? 'index' : 'compile'))
    threads.warm()
    const tables = threads.synonyms()
    // Not started yet (the warm-up not answered), and the tables asked for: sent all the same.
    const onThread = Array.from({ length: 7 }, (_, i) => threads.index([texts[i % 3]!]))
    expect(kinds()).toEqual(['index', 'tables', ...onThread.map(() => 'index' as const)])
    // Eight groups unanswered (the warm-up's one of them): the next is chunked here at once.
    expect(await threads.index([texts[2]!])).toEqual([indexSection(texts[2]!)])
    expect(kinds().length).toBe(9)
    for (const m of workers[0]!.sent.filter((m) => m.index))
      workers[0]!.reply({
        type: 'indexed',
        id: m.id,
        sections: packSections(
          m.index!.map((text) => indexSection(text, m.prefix)),
          m.prefix,
        ),
      })
    expect(await Promise.all(onThread)).toEqual(onThread.map((_, i) => [indexSection(texts[i % 3]!)]))
    workers[0]!.reply({ type: 'tables', id: workers[0]!.sent[1]!.id, synonyms: synonymTable() })
    expect(await tables).toEqual(synonymTable())
  })

  test('a group the thread has not started is taken back and chunked here; one it has started is waited for', async () => {
    const { threads, workers } = fakePool()
    threads.warm()
    const started = threads.index([texts[0]!])
    const notStarted = threads.index([texts[1]!])
    const [, first, second] = workers[0]!.sent
    // Each group carries its claim; the thread takes the first (as compile-worker.ts does).
    expect(Atomics.compareExchange(first!.claim!, 0, 0, 1)).toBe(0)
    started.take!()
    notStarted.take!()
    // The second was the event loop's: chunked here, and the thread, reaching it, may not take it.
    expect(await notStarted).toEqual([indexSection(texts[1]!)])
    expect(Atomics.compareExchange(second!.claim!, 0, 0, 1)).toBe(2)
    let answered = false
    started.then(() => {
      answered = true
    })
    await Bun.sleep(0)
    expect(answered).toBe(false)
    workers[0]!.reply({ type: 'indexed', id: first!.id, sections: packSections([indexSection(texts[0]!)]) })
    expect(await started).toEqual([indexSection(texts[0]!)])
    // An answer for the group taken back (a thread that chunked it anyway) is ignored.
    workers[0]!.reply({ type: 'indexed', id: second!.id, sections: packSections([]) })
    expect(await notStarted).toEqual([indexSection(texts[1]!)])
  })

  test('a real thread passes over a group the event loop took back, and chunks the next', async () => {
    const worker = new Worker(compileWorkerPath())
    try {
      const replies: CompileReply[] = []
      const answered = new Promise<void>((resolve) => {
        worker.onmessage = (e) => {
          replies.push(e.data as CompileReply)
          resolve()
        }
      })
      const taken = new Int32Array(new SharedArrayBuffer(4))
      taken[0] = 2
      const open = new Int32Array(new SharedArrayBuffer(4))
      worker.postMessage({
        id: 1,
        text: '',
        vectors: false,
        index: [texts[0]!],
        claim: taken,
      } satisfies CompileRequest)
      worker.postMessage({
        id: 2,
        text: '',
        vectors: false,
        index: [texts[1]!],
        claim: open,
      } satisfies CompileRequest)
      await answered
      expect(replies.map((r) => r.id)).toEqual([2])
      expect(replies[0]!.type === 'indexed' && replies[0]!.sections).toEqual(
        packSections([indexSection(texts[1]!)]),
      )
      expect(open[0]).toBe(1)
      expect(taken[0]).toBe(2)
    } finally {
      worker.terminate()
    }
  })

  test("a real thread chunks a run's group before the tables and the compiles asked for before it", async () => {
    const replies: string[] = []
    pool = new CompileThreads({
      threads: 1,
      spawn: () => {
        const worker = new Worker(compileWorkerPath())
        worker.addEventListener('message', (e) => replies.push((e as MessageEvent<CompileReply>).data.type))
        return worker as unknown as CompileWorker
      },
    })
    pool.warm()
    // On the thread, though it has not answered yet: after the warm-up.
    expect(await pool.index([texts[0]!])).toEqual([indexSection(texts[0]!)])
    expect(replies).toEqual(['indexed', 'indexed'])
    // Two compiles (the first loads the compile's tables: the rest arrive while it runs), the tables,
    // then a group.
    const compiled = [pool.compile(texts[1]!), pool.compile(texts[0]!)]
    const tables = pool.synonyms()
    const chunked = pool.index([texts[2]!])
    expect(await chunked).toEqual([indexSection(texts[2]!)])
    await Promise.all([...compiled, tables])
    // After the warm-up: the group before the tables, the tables before the compile still waiting (the
    // first compile may have been under way as they came).
    const after = replies.slice(2)
    expect(after.filter((r) => r !== 'done')).toEqual(['indexed', 'tables'])
    expect(after.at(-1)).toBe('done')
    expect(after.length).toBe(4)
  })

  test('a thread that keeps being given groups still builds the tables, a step every second group', async () => {
    const worker = new Worker(compileWorkerPath())
    try {
      const replies: string[] = []
      const all = new Promise<void>((resolve) => {
        worker.onmessage = (e) => {
          replies.push((e.data as CompileReply).type)
          if (replies.length === 10) resolve()
        }
      })
      // A compile (the thread's first: it loads the compile's tables while the rest arrive), the
      // tables, then eight groups.
      worker.postMessage({ id: 1, text: texts[0]!, vectors: false } satisfies CompileRequest)
      worker.postMessage({ id: 2, text: '', vectors: false, tables: true } satisfies CompileRequest)
      for (let i = 0; i < 8; i++)
        worker.postMessage({
          id: 3 + i,
          text: '',
          vectors: false,
          index: [texts[i % 3]!],
        } satisfies CompileRequest)
      await all
      // Two groups, a step of the tables, and so on: the tables (three steps) after the sixth group.
      const beforeTables = replies.slice(0, replies.indexOf('tables')).filter((r) => r === 'indexed')
      expect(beforeTables.length).toBe(6)
      expect(replies.filter((r) => r === 'indexed').length).toBe(8)
    } finally {
      worker.terminate()
    }
  })

  test('a thread builds the synonym table questions read, the same as in process', async () => {
    pool = new CompileThreads({ threads: 1 })
    expect(await pool.synonyms()).toEqual(synonymTable())
  })

  test("the thread's tables bring the noun kinds and static vectors too, equal to those read in process", async () => {
    const worker = new Worker(compileWorkerPath())
    try {
      const reply = new Promise<CompileReply>((resolve) => {
        worker.onmessage = (e) => resolve(e.data as CompileReply)
      })
      worker.postMessage({ id: 1, text: '', vectors: false, tables: true } satisfies CompileRequest)
      const msg = await reply
      if (msg.type !== 'tables') throw new Error(`unexpected ${msg.type}`)
      expect(msg.hypernyms).toEqual(prepareHypernyms())
      const local = staticVectorTable()
      const { vectors } = msg
      expect(vectors!.dims).toBe(local.dims)
      for (const k of ['scales', 'values', 'vocab', 'starts', 'stop', 'slots'] as const) {
        const bytes = (a: ArrayBufferView) => Buffer.from(a.buffer, a.byteOffset, a.byteLength)
        expect(bytes(vectors![k]).equals(bytes(local[k]))).toBe(true)
      }
    } finally {
      worker.terminate()
    }
  })

  test('the event loop takes the noun kinds and static vectors a thread sends instead of reading them', () => {
    // A fresh process, whose tables nothing has read yet; the thread's stand-in sends marked copies.
    const run = inFreshProcess(
      `import { CompileThreads } from '${ROOT}/src/features/engine/cart/index'
       import * as text from '${ROOT}/src/features/engine/text/index'
       import { FakeWorker } from '${ROOT}/tests/helpers/fake-worker'
       const w = new FakeWorker()
       const pool = new CompileThreads({ threads: 1, spawn: () => w as never })
       const asked = pool.synonyms()
       const hypernyms = { lines: new Uint32Array(0), slots: new Int32Array(1), mask: 0, up: new Uint32Array(0),
         upOff: new Uint32Array(1), person: 7, place: 9 }
       const vectors = { ...text.staticVectorTable(), dims: 3 }
       w.reply({ type: 'tables', id: w.sent[0].id, synonyms: text.synonymTable(), hypernyms, vectors })
       await asked
       console.log(JSON.stringify({ dims: text.staticDims(), who: text.answerKind(text.tokenize('Who won it?')) }))`,
    )
    expect(run.stderr).toBe('')
    expect(JSON.parse(run.stdout)).toEqual({ dims: 3, who: [7] })
  })

  test("a question waits for the synonym table a run's end started building elsewhere; its start builds none", async () => {
    const db = openDatabase(':memory:')
    migrate(db, migrations)
    let hand: (t: SynonymTable) => void = () => {}
    const built = new Promise<SynonymTable>((resolve) => {
      hand = resolve
    })
    let builds = 0
    const synonyms = () => {
      builds++
      return built
    }
    const engine = new Engine({ db, store: memoryStore(), cacheBytes: 1 << 24, synonyms })
    // As an upload and a run start: the thread's reading of the tables would hold up the run's groups.
    engine.warmUp()
    expect(builds).toBe(0)
    await onboardDoc(engine, 'cor_1', docs[0]!)
    const warmed = engine.warmBase('cor_1')
    expect(builds).toBe(1)
    let answered = false
    const asked = engine.ask('cor_1', { question: 'When was Tesla born?', strategy: 'rag' }).then((r) => {
      answered = true
      return r
    })
    await Bun.sleep(0)
    expect(answered).toBe(false)
    hand(synonymTable())
    expect((await asked).answer).toContain('1856')
    await warmed
    expect(builds).toBe(1)
  })
})
