import { afterEach, describe, expect, test } from 'bun:test'
import {
  BULK_IDLE_MS,
  type EncoderReply,
  type EncoderRequest,
  EncoderThread,
  type EncoderWorker,
} from '../../../src/features/engine/support/index'
import { FakeWorker } from '../../helpers/fake-worker'

class FakeEncoder extends FakeWorker<EncoderRequest, EncoderReply> implements EncoderWorker {
  /** Answers its oldest unanswered request with one vector per text ([text length, 0]). */
  answerNext(): void {
    const req = this.sent[this.answered++]!
    this.reply({ type: 'done', id: req.id, vectors: req.texts.map((t) => Float32Array.of(t.length, 0)) })
  }
  answered = 0
}

/** Timers the test fires by hand. */
function manualTimers() {
  const timers = new Map<number, { fn: () => void; ms: number }>()
  let next = 1
  return {
    timers,
    setTimer: (fn: () => void, ms: number) => {
      timers.set(next, { fn, ms })
      return next++
    },
    clearTimer: (t: unknown) => void timers.delete(t as number),
    fireAll: () => {
      const due = [...timers.values()]
      timers.clear()
      for (const t of due) t.fn()
    },
  }
}

let encoder: EncoderThread | null = null
afterEach(() => {
  encoder?.close()
  encoder = null
})

/** An encoder whose threads are fakes, listed in `workers` as they start. */
function fakeEncoder(onFailure?: (reason: string) => void, maxPending?: number) {
  const workers: FakeEncoder[] = []
  const clock = manualTimers()
  encoder = new EncoderThread({
    idleMs: 5000,
    maxPending,
    onFailure,
    setTimer: clock.setTimer,
    clearTimer: clock.clearTimer,
    spawn: () => {
      const w = new FakeEncoder()
      workers.push(w)
      return w
    },
  })
  return { encoder, workers, clock }
}

describe('the built-in encoder thread', () => {
  test('starts on the first request, answers each request with its own vectors, and holds the process only while busy', async () => {
    const { encoder, workers } = fakeEncoder()
    expect(workers).toHaveLength(0)
    const a = encoder.embed(['one', 'three'])
    const b = encoder.embed(['fifteen'])
    expect(workers).toHaveLength(1)
    expect(workers[0]!.sent.map((r) => r.texts)).toEqual([['one', 'three'], ['fifteen']])
    expect(workers[0]!.held).toBe(true)
    workers[0]!.answerNext()
    expect(workers[0]!.held).toBe(true)
    workers[0]!.answerNext()
    expect(workers[0]!.held).toBe(false)
    expect((await a).map((v) => v[0])).toEqual([3, 5])
    expect((await b).map((v) => v[0])).toEqual([7])
  })

  test('an idle thread is stopped after idleMs, and the next request starts another', async () => {
    const { encoder, workers, clock } = fakeEncoder()
    const first = encoder.embed(['a'])
    workers[0]!.answerNext()
    await first
    expect([...clock.timers.values()].map((t) => t.ms)).toEqual([5000])
    clock.fireAll()
    expect(workers[0]!.terminated).toBe(true)
    // Stopped on purpose: its exit is not a failure.
    workers[0]!.exit()
    expect(encoder.available).toBe(true)
    const second = encoder.embed(['bb'])
    expect(workers).toHaveLength(2)
    workers[1]!.answerNext()
    expect((await second)[0]![0]).toBe(2)
  })

  test('after bulk work the idle thread is stopped after bulkIdleMs; a question after it brings back idleMs', async () => {
    const { encoder, workers, clock } = fakeEncoder()
    const job = encoder.embed(['passage one', 'passage two'], true)
    workers[0]!.answerNext()
    await job
    expect([...clock.timers.values()].map((t) => t.ms)).toEqual([BULK_IDLE_MS])
    const question = encoder.embed(['a question?'])
    expect(clock.timers.size).toBe(0)
    workers[0]!.answerNext()
    await question
    expect([...clock.timers.values()].map((t) => t.ms)).toEqual([5000])
    const more = encoder.embed(['passage three'], true)
    workers[0]!.answerNext()
    await more
    expect([...clock.timers.values()].map((t) => t.ms)).toEqual([BULK_IDLE_MS])
    clock.fireAll()
    expect(workers[0]!.terminated).toBe(true)
  })

  test('a request before the idle time is up keeps the thread', async () => {
    const { encoder, workers, clock } = fakeEncoder()
    const first = encoder.embed(['a'])
    workers[0]!.answerNext()
    await first
    const second = encoder.embed(['b'])
    expect(clock.timers.size).toBe(0)
    workers[0]!.answerNext()
    await second
    expect(workers).toHaveLength(1)
    expect(workers[0]!.terminated).toBe(false)
  })

  test("a request the model fails rejects with the thread's message; the thread stays", async () => {
    const { encoder, workers } = fakeEncoder()
    const failed = encoder.embed(['x'])
    workers[0]!.reply({ type: 'error', id: workers[0]!.sent[0]!.id, message: 'out of memory' })
    await expect(failed).rejects.toThrow('out of memory')
    expect(encoder.available).toBe(true)
    const next = encoder.embed(['yy'])
    workers[0]!.answered = 1
    workers[0]!.answerNext()
    expect((await next)[0]![0]).toBe(2)
  })

  for (const [how, kill] of [
    ['crashes', (w: FakeEncoder) => w.crash('RuntimeError: unreachable')],
    ['exits by itself', (w: FakeEncoder) => w.exit()],
  ] as const) {
    test(`a thread that ${how} turns the encoder off: its requests and every later one reject, said once`, async () => {
      const reasons: string[] = []
      const { encoder, workers } = fakeEncoder((r) => reasons.push(r))
      const pending = encoder.embed(['a'])
      kill(workers[0]!)
      await expect(pending).rejects.toThrow('the encoder is off')
      expect(workers[0]!.terminated).toBe(true)
      await expect(encoder.embed(['b'])).rejects.toThrow('the encoder is off')
      expect(workers).toHaveLength(1)
      expect(encoder.available).toBe(false)
      expect(reasons).toEqual([how === 'crashes' ? 'RuntimeError: unreachable' : 'it exited'])
    })
  }

  test('a model that cannot load turns the encoder off at once, said once', async () => {
    const reasons: string[] = []
    const { encoder, workers } = fakeEncoder((r) => reasons.push(r))
    const first = encoder.embed(['a'])
    const second = encoder.embed(['b'])
    const [a, b] = workers[0]!.sent
    workers[0]!.reply({ type: 'error', id: a!.id, message: 'the model could not load: no wasm', fatal: true })
    await expect(first).rejects.toThrow('the encoder is off: the model could not load: no wasm')
    await expect(second).rejects.toThrow('the encoder is off')
    workers[0]!.reply({ type: 'error', id: b!.id, message: 'the model could not load: no wasm', fatal: true })
    expect(workers[0]!.terminated).toBe(true)
    expect(encoder.available).toBe(false)
    expect(reasons).toEqual(['the model could not load: no wasm'])
  })

  test('a request past maxPending is refused at once, and the thread goes on with the others', async () => {
    const { encoder, workers } = fakeEncoder(undefined, 2)
    const held = [encoder.embed(['a']), encoder.embed(['bb'])]
    await expect(encoder.embed(['ccc'])).rejects.toThrow('the encoder is busy')
    expect(workers[0]!.sent).toHaveLength(2)
    workers[0]!.answerNext()
    await held[0]
    // A place is free again.
    const next = encoder.embed(['dddd'])
    workers[0]!.answerNext()
    workers[0]!.answerNext()
    expect((await held[1]!)[0]![0]).toBe(2)
    expect((await next)[0]![0]).toBe(4)
    expect(encoder.available).toBe(true)
  })

  test('bulk work is not refused when questions fill maxPending, nor counted against them', async () => {
    const { encoder, workers } = fakeEncoder(undefined, 2)
    const bulk = encoder.embed(['passage'], true)
    const held = [encoder.embed(['a']), encoder.embed(['bb'])]
    const more = encoder.embed(['another passage'], true)
    await expect(encoder.embed(['ccc'])).rejects.toThrow('the encoder is busy')
    expect(workers[0]!.sent.map((r) => r.texts[0])).toEqual(['passage', 'a', 'bb', 'another passage'])
    for (let i = 0; i < 4; i++) workers[0]!.answerNext()
    expect((await bulk)[0]![0]).toBe(7)
    expect((await more)[0]![0]).toBe(15)
    expect((await held[1]!)[0]![0]).toBe(2)
  })

  test('a thread that cannot start turns the encoder off', async () => {
    const reasons: string[] = []
    encoder = new EncoderThread({
      idleMs: 1000,
      onFailure: (r) => reasons.push(r),
      spawn: () => {
        throw new Error('no such script')
      },
    })
    await expect(encoder.embed(['a'])).rejects.toThrow('no such script')
    await expect(encoder.embed(['b'])).rejects.toThrow('no such script')
    expect(reasons).toEqual(['no such script'])
  })

  test('closing stops the thread and fails what it still had', async () => {
    const { encoder, workers } = fakeEncoder()
    const pending = encoder.embed(['a'])
    encoder.close()
    await expect(pending).rejects.toThrow('closed')
    expect(workers[0]!.terminated).toBe(true)
    await expect(encoder.embed(['b'])).rejects.toThrow('closed')
  })

  test('the real thread embeds with Universal Sentence Encoder lite: unit vectors, a paraphrase nearer than another subject', async () => {
    encoder = new EncoderThread({ idleMs: 1000 })
    const [q, near, far] = await encoder.embed([
      'What is the capital of Mongolia?',
      'Ulaanbaatar is the capital city of Mongolia.',
      'Employees book flights through the travel desk.',
    ])
    const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0)
    expect(q).toHaveLength(512)
    expect(dot(q!, q!)).toBeCloseTo(1, 4)
    expect(dot(q!, near!)).toBeGreaterThan(dot(q!, far!) + 0.3)
  })

  test("the real thread: a question sent while a passage is encoded is answered before that passage's pass ends, the vectors the same", async () => {
    encoder = new EncoderThread({ idleMs: 5000 })
    // The model loaded first: the passage's pass then starts as its request comes.
    await encoder.embed(['warm'])
    const passage = 'Harwell is a village in Oxfordshire, known for its laboratory and its reactors. '.repeat(
      8,
    )
    const question = 'Who designed the first reactor at Harwell?'
    const order: string[] = []
    // Both requests are sent before the thread reads either: the passage's pass starts with the
    // first (once the thread is idle), and the question is read at the pass's first stop (a turn
    // of the thread's event loop) and answered there (use-lite.test.ts holds the stops themselves).
    const answered = (what: string) => (v: Float32Array[]) => {
      order.push(what)
      return v
    }
    const [p, q] = await Promise.all([
      encoder.embed([passage], true).then(answered('passage')),
      encoder.embed([question]).then(answered('question')),
    ])
    expect(order).toEqual(['question', 'passage'])
    const bits = (v: Float32Array) => Array.from(new Uint32Array(v.buffer))
    const [pAlone, qAlone] = await encoder.embed([passage, question])
    expect(bits(p![0]!)).toEqual(bits(pAlone!))
    expect(bits(q![0]!)).toEqual(bits(qAlone!))
  })
})
