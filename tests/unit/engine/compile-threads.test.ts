import { afterEach, describe, expect, test } from 'bun:test'
import { migrations } from '../../../migrations/index'
import { CompileThreads, compileSection, packSections } from '../../../src/features/engine/cart/index'
import { BUILTIN_MODEL, builtinEmbedder } from '../../../src/features/engine/embedder'
import { Engine } from '../../../src/features/engine/engine.service'
import { openDatabase } from '../../../src/platform/db/db'
import { migrate } from '../../../src/platform/db/migrate'
import { articleTexts, docs, FakeCompileWorker, memoryStore, onboardDoc } from './fixture'

const texts = articleTexts

let pool: CompileThreads | null = null
afterEach(() => {
  pool?.close()
  pool = null
})

/** A pool of one thread whose threads are fakes, listed in `workers` as they are started (set `pool` to it). */
function fakePool(options: Omit<ConstructorParameters<typeof CompileThreads>[0], 'threads' | 'spawn'> = {}) {
  const workers: FakeCompileWorker[] = []
  const made = new CompileThreads({
    ...options,
    threads: 1,
    spawn: () => {
      const w = new FakeCompileWorker()
      workers.push(w)
      return w
    },
  })
  return { made, workers }
}

describe('compile threads', () => {
  test('a real thread gives exactly what compiling in process gives, for several sections at once', async () => {
    pool = new CompileThreads({ threads: 1 })
    const results = await Promise.all(texts.map((t) => pool!.compile(t)))
    results.forEach((r, i) => {
      const local = compileSection(texts[i]!)
      expect(Buffer.from(r.bytes).equals(Buffer.from(local.bytes))).toBe(true)
      expect(r.inputs).toEqual(local.inputs)
    })
  })

  test('a thread that cannot start leaves the work in process, said once', async () => {
    const reasons: string[] = []
    pool = new CompileThreads({
      threads: 1,
      spawn: () => {
        throw new Error('no such script')
      },
      onFallback: (r) => reasons.push(r),
    })
    const a = await pool.compile(texts[0]!)
    const b = await pool.compile(texts[1]!)
    expect(Buffer.from(a.bytes).equals(Buffer.from(compileSection(texts[0]!).bytes))).toBe(true)
    expect(b.inputs).toEqual(compileSection(texts[1]!).inputs)
    expect(reasons).toEqual(['no such script'])
  })

  test('a thread that dies hands its unfinished work back to the process, and is not restarted', async () => {
    const reasons: string[] = []
    const { made, workers } = fakePool({ onFallback: (r) => reasons.push(r) })
    pool = made
    const pending = [pool.compile(texts[0]!), pool.compile(texts[1]!)]
    expect(workers).toHaveLength(1)
    expect(workers[0]!.sent.map((m) => m.text)).toEqual([texts[0]!, texts[1]!])
    // The thread keeps the process alive only while it has work.
    expect(workers[0]!.held).toBe(true)
    workers[0]!.exit()
    const results = await Promise.all(pending)
    expect(results.map((r) => r.inputs)).toEqual([
      compileSection(texts[0]!).inputs,
      compileSection(texts[1]!).inputs,
    ])
    expect(workers[0]!.terminated).toBe(true)
    expect(reasons).toEqual(['it exited'])
    await pool.compile(texts[2]!)
    expect(workers).toHaveLength(1)
  })

  test('an error thrown on the thread fails that section only', async () => {
    const worker = new FakeCompileWorker()
    pool = new CompileThreads({ threads: 1, spawn: () => worker })
    const bad = pool.compile('one')
    const good = pool.compile(texts[0]!)
    const [first, second] = worker.sent
    worker.reply({ type: 'error', id: first!.id, message: 'compile failed' })
    const local = compileSection(texts[0]!)
    worker.reply({ type: 'done', id: second!.id, ...local })
    await expect(bad).rejects.toThrow('compile failed')
    expect((await good).inputs).toEqual(local.inputs)
    expect(worker.terminated).toBe(false)
  })

  test('an idle thread is stopped, and the next compile starts a new one', async () => {
    const { made, workers } = fakePool({ idleMs: 0 })
    pool = made
    const first = pool.compile(texts[0]!)
    workers[0]!.reply({ type: 'done', id: workers[0]!.sent[0]!.id, ...compileSection(texts[0]!) })
    await first
    expect(workers[0]!.held).toBe(false)
    // Stopped on purpose: its exit is not taken for a failure.
    await new Promise<void>((resolve) => setTimeout(resolve, 0))
    expect(workers[0]!.terminated).toBe(true)
    workers[0]!.exit()
    const second = pool.compile(texts[1]!)
    expect(workers).toHaveLength(2)
    workers[1]!.reply({ type: 'done', id: workers[1]!.sent[0]!.id, ...compileSection(texts[1]!) })
    await second
  })

  test("a thread stops runIdleMs after a run's chunking, and idleMs after a build's compiles or a warm-up", async () => {
    const { made, workers } = fakePool({ idleMs: 60_000, runIdleMs: 0 })
    pool = made
    const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 0))
    pool.warm()
    workers[0]!.reply({ type: 'error', id: workers[0]!.sent[0]!.id, message: 'dropped' })
    await tick()
    // Warmed as an upload begins: its run may be a while coming, and finds the thread ready.
    expect(workers[0]!.terminated).toBe(false)
    const built = pool.compile(texts[1]!)
    workers[0]!.reply({ type: 'done', id: workers[0]!.sent[1]!.id, ...compileSection(texts[1]!) })
    await built
    await tick()
    // A build's compiles done: kept idleMs, as before (stopped sooner, the 10x bench's peak was higher).
    expect(workers[0]!.terminated).toBe(false)
    const chunked = pool.index([texts[0]!])
    workers[0]!.reply({ type: 'indexed', id: workers[0]!.sent[2]!.id, sections: packSections([]) })
    await chunked
    await tick()
    // A run's chunking done and no compile after it (a re-run of unchanged documents): its tables
    // (about 40 MB) are not held through the questions after it.
    expect(workers[0]!.terminated).toBe(true)
  })

  test('warming starts a thread with a short compile before any section, and the first section goes to it', async () => {
    const { made, workers } = fakePool()
    pool = made
    pool.warm()
    expect(workers).toHaveLength(1)
    expect(workers[0]!.sent).toHaveLength(1)
    const warmText = workers[0]!.sent[0]!.text
    expect(compileSection(warmText).inputs.length).toBeGreaterThan(0)
    const first = pool.compile(texts[0]!)
    expect(workers).toHaveLength(1)
    expect(workers[0]!.sent.map((m) => m.text)).toEqual([warmText, texts[0]!])
    // The warm-up's answer is dropped quietly, even a failure.
    workers[0]!.reply({ type: 'error', id: workers[0]!.sent[0]!.id, message: 'no tables' })
    workers[0]!.reply({ type: 'done', id: workers[0]!.sent[1]!.id, ...compileSection(texts[0]!) })
    expect((await first).inputs).toEqual(compileSection(texts[0]!).inputs)
  })

  test('warming does nothing once the threads have failed or are closed', () => {
    let spawned = 0
    pool = new CompileThreads({
      threads: 1,
      spawn: () => {
        spawned++
        throw new Error('no such script')
      },
    })
    pool.warm()
    expect(spawned).toBe(1)
    // Failed: compiling is in process from now on, which needs no warming (and would block).
    pool.warm()
    expect(spawned).toBe(1)
    const closed = new CompileThreads({ threads: 1, spawn: () => new FakeCompileWorker() })
    closed.close()
    closed.warm()
  })

  test('closing fails the work still out and refuses more', async () => {
    const worker = new FakeCompileWorker()
    pool = new CompileThreads({ threads: 1, spawn: () => worker })
    const out = pool.compile(texts[0]!)
    pool.close()
    await expect(out).rejects.toThrow('closed')
    await expect(pool.compile(texts[1]!)).rejects.toThrow('closed')
    expect(worker.terminated).toBe(true)
  })

  test('an engine compiling on a thread indexes and answers exactly as one compiling in process', async () => {
    pool = new CompileThreads({ threads: 1 })
    const threads = pool
    const engines = [undefined, (t: string) => threads.compile(t)].map((compile) => {
      const db = openDatabase(':memory:')
      migrate(db, migrations)
      return new Engine({ db, store: memoryStore(), cacheBytes: 64 * 1024 * 1024, now: () => 0, compile })
    })
    for (const engine of engines) for (const d of docs) await onboardDoc(engine, 'cor_1', d)
    // Compiled in process, the cartridges are warm at once; from a thread, once the base is warmed
    // (onboarding does it when a run ends) or on the first question.
    expect(engines[0]!.cache.size).toBe(3)
    expect(engines[1]!.cache.size).toBe(0)
    await engines[1]!.warmBase('cor_1')
    expect(engines[1]!.cache.size).toBe(3)
    for (const strategy of ['cart', 'rag'] as const)
      for (const question of ['When did Tesla die?', 'Who discovered oxygen?', 'What river is Warsaw on?']) {
        const [a, b] = await Promise.all(engines.map((e) => e.ask('cor_1', { question, strategy, k: 3 })))
        expect(b).toEqual(a!)
        expect(a!.sources.length).toBeGreaterThan(0)
      }
  })

  test('with the built-in vectors, a thread embeds the passages too, and the engine stores its vectors', async () => {
    pool = new CompileThreads({ threads: 1, staticVectors: true })
    const [onThread] = await Promise.all([pool.compile(texts[0]!)])
    const local = compileSection(texts[0]!, true)
    expect(onThread!.vectors?.model).toBe(BUILTIN_MODEL)
    expect(onThread!.vectors!.list.map((v) => [...v])).toEqual(local.vectors!.list.map((v) => [...v]))
    expect(onThread!.vectors!.list).toHaveLength(onThread!.inputs.length)
    expect(compileSection(texts[0]!).vectors).toBeUndefined()

    const threads = pool
    const db = openDatabase(':memory:')
    migrate(db, migrations)
    let calledNow = 0
    const builtin = builtinEmbedder(1.5)
    const engine = new Engine({
      db,
      store: memoryStore(),
      cacheBytes: 64 * 1024 * 1024,
      compile: (t) => threads.compile(t),
      embedder: {
        ...builtin,
        embedNow: (list) => {
          calledNow++
          return builtin.embedNow!(list)
        },
      },
    })
    for (const d of docs) await onboardDoc(engine, 'cor_1', d)
    expect(calledNow).toBe(0)
    const stored = db.$client
      .query('SELECT model, count(*) AS n FROM engine_vectors GROUP BY model')
      .all() as { model: string; n: number }[]
    const passages = db.$client.query('SELECT count(*) AS n FROM engine_passages').get() as { n: number }
    expect(stored).toEqual([{ model: BUILTIN_MODEL, n: passages.n }])
  })
})
