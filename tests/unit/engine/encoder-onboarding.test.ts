import { afterAll, describe, expect, test } from 'bun:test'
import { migrations } from '../../../migrations/index'
import { Engine } from '../../../src/features/engine/engine.service'
import {
  dequantize,
  ENCODER_START_WAIT_MS,
  type EncoderEmbed,
  EncoderThread,
  quantize,
  SUPPORT_THRESHOLD,
  unsure,
} from '../../../src/features/engine/support/index'
import { openDatabase } from '../../../src/platform/db/db'
import { migrate } from '../../../src/platform/db/migrate'
import { memoryStore, onboardDoc, POLICIES } from './fixture'

/** A unit vector of the encoder's 512 dimensions along one axis. */
const axis = (i: number) => {
  const v = new Float32Array(512)
  v[i] = 1
  return v
}

// The word-level check is unsure of it (encoder-check.test.ts): the encoder decides.
const UNSURE = 'Where is sick leave booked?'

/** Timers run by hand: the bounded wait is decided without waiting for any clock. */
function manualTimers() {
  const pending = new Map<number, () => void>()
  const waits: number[] = []
  let next = 1
  return {
    waits,
    setTimer: (fn: () => void, ms: number) => {
      pending.set(next, fn)
      waits.push(ms)
      return next++
    },
    clearTimer: (t: unknown) => void pending.delete(t as number),
    fireAll() {
      const fns = [...pending.values()]
      pending.clear()
      for (const fn of fns) fn()
    },
    get size() {
      return pending.size
    },
  }
}

async function engineWith(
  encoder: EncoderEmbed | null,
  extra: Partial<ConstructorParameters<typeof Engine>[0]> = {},
) {
  const db = openDatabase(':memory:')
  migrate(db, migrations)
  const e = new Engine({ db, store: memoryStore(), cacheBytes: 1 << 24, now: () => 0, encoder, ...extra })
  for (const d of POLICIES) await onboardDoc(e, 'cor_1', d)
  const count = (sql: string) => (db.$client.query(sql).get() as { n: number }).n
  return { e, db, count, sections: () => e.sectionsOf('cor_1').map((s) => s.sectionId) }
}

const pick = (t: ReturnType<typeof manualTimers>) => ({ setTimer: t.setTimer, clearTimer: t.clearTimer })

/** An encoder stand-in: questions (texts ending in "?") on axis 0, passages on `passageAxis`; records requests. */
function standin(passageAxis: number) {
  const asked: string[][] = []
  const bulk: boolean[] = []
  const embed: EncoderEmbed = async (texts, isBulk) => {
    asked.push(texts)
    bulk.push(isBulk ?? false)
    return texts.map((t) => (t.endsWith('?') ? axis(0) : axis(passageAxis)))
  }
  return { asked, bulk, embed }
}

describe('passages encoded once, at onboarding', () => {
  test('int8 encodings keep the cosines to a thousandth, in a quarter of the bytes', () => {
    let seed = 7
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648
      return seed / 2147483648 - 0.5
    }
    const unitOf = (v: Float32Array) => {
      const n = Math.hypot(...v)
      return v.map((x) => x / n)
    }
    const a = unitOf(Float32Array.from({ length: 512 }, rand))
    const b = unitOf(Float32Array.from({ length: 512 }, (_, i) => a[i]! + rand()))
    const bytes = quantize(b)
    expect(bytes.byteLength).toBe(516)
    const back = dequantize(bytes)
    let exact = 0
    let approx = 0
    for (let i = 0; i < 512; i++) {
      exact += a[i]! * b[i]!
      approx += a[i]! * back[i]!
    }
    expect(Math.abs(exact - approx)).toBeLessThan(1e-3)
  })

  test('every passage gets one row; encoding again adds none; a re-onboarded section is encoded again', async () => {
    const enc = standin(1)
    const { e, count, sections } = await engineWith(enc.embed)
    const passages = count('SELECT count(*) AS n FROM engine_passages')
    expect(passages).toBe(3)
    expect(count('SELECT count(*) AS n FROM engine_encodings')).toBe(0)
    expect(e.encodings.basesWithoutEncodings()).toEqual(['cor_1'])
    expect(await e.encodings.encodeSections(sections())).toBe(passages)
    expect(count('SELECT count(*) AS n FROM engine_encodings')).toBe(passages)
    // Sent as bulk work (the thread is let go soon after it), the passages' own texts, not their sections'.
    expect(enc.bulk.length).toBeGreaterThan(0)
    expect(enc.bulk.every(Boolean)).toBe(true)
    expect(enc.asked.flat().some((t) => t.includes('paid leave') && !t.includes('office'))).toBe(true)
    expect(e.encodings.basesWithoutEncodings()).toEqual([])
    expect(await e.encodings.encodeSections(sections())).toBe(0)
    await onboardDoc(e, 'cor_1', {
      ...POLICIES[0]!,
      text: `${POLICIES[0]!.text} Trains are booked the same way.`,
    })
    expect(count('SELECT count(*) AS n FROM engine_encodings')).toBe(passages - 1)
    expect(e.encodings.basesWithoutEncodings()).toEqual(['cor_1'])
    await e.removeBase('cor_1')
    expect(count('SELECT count(*) AS n FROM engine_encodings')).toBe(0)
  })

  for (const strategy of ['cart', 'rag'] as const) {
    test(`${strategy}: an encoded base costs a question one encoder pass, the question alone, and decides as before`, async () => {
      const before = standin(1)
      const old = await engineWith(before.embed)
      const declined = await old.e.ask('cor_1', { question: UNSURE, strategy })
      // Before encoding (a base still building): the question and its passages in one request.
      expect(declined.answered).toBe(false)
      expect(before.asked).toHaveLength(1)
      expect(before.asked[0]!.length).toBeGreaterThan(1)

      const enc = standin(1)
      const { e, sections } = await engineWith(enc.embed)
      await e.encodings.encodeSections(sections())
      enc.asked.length = 0
      const res = await e.ask('cor_1', { question: UNSURE, strategy })
      expect(enc.asked).toEqual([[UNSURE]])
      expect(res).toEqual(declined)
      expect(e.encodings.stats()).toMatchObject({ asked: 1, passes: 1, embedded: 0, timedOut: 0 })
      expect(e.encodings.stats().stored).toBeGreaterThan(0)
    })

    test(`${strategy}: an encoder that never answers: the answer comes when the wait runs out, counted`, async () => {
      const words = await (await engineWith(null)).e.ask('cor_1', { question: UNSURE, strategy })
      expect(unsure(words.metrics.support)).toBe(true)
      const timers = manualTimers()
      const asked: string[][] = []
      const never: EncoderEmbed = (texts) => {
        asked.push(texts)
        return new Promise(() => {})
      }
      const { e } = await engineWith(never, {
        encoderWait: { waitMs: 150, setTimer: timers.setTimer, clearTimer: timers.clearTimer },
      })
      const pending = e.ask('cor_1', { question: UNSURE, strategy })
      // Let the search run up to the wait (it awaits only settled promises and the encoder).
      for (let i = 0; i < 50 && timers.size === 0; i++) await Promise.resolve()
      expect(timers.size).toBe(1)
      timers.fireAll()
      const res = await pending
      expect(asked).toHaveLength(1)
      expect(res).toEqual(words)
      expect(e.encodings.stats()).toMatchObject({ asked: 1, timedOut: 1 })
      expect(timers.waits).toEqual([150])
    })

    test(`${strategy}: an encoder still loading its model is waited for longer, and still bounded`, async () => {
      const timers = manualTimers()
      const never: EncoderEmbed = () => new Promise(() => {})
      const { e } = await engineWith(never, {
        encoderWait: { waitMs: 150, loaded: () => false, ...pick(timers) },
      })
      const pending = e.ask('cor_1', { question: UNSURE, strategy })
      for (let i = 0; i < 50 && timers.size === 0; i++) await Promise.resolve()
      timers.fireAll()
      expect((await pending).answered).toBe(true)
      expect(timers.waits).toEqual([ENCODER_START_WAIT_MS])
    })
  }
})

describe('the built-in encoder itself: decisions unchanged once passages are encoded', () => {
  const encoder = new EncoderThread({ idleMs: 1000 })
  afterAll(() => encoder.close())
  const embed: EncoderEmbed = (texts) => encoder.embed(texts)
  const QUESTIONS = [
    UNSURE,
    'Who approves the travel budget?',
    'Who approves paid leave?',
    'How many days before departure are flights booked?',
    'When does the office open on Saturdays?',
  ]

  test('the same answers, declines and support (to a hundredth) as embedding passages with each question', async () => {
    const before = await engineWith(embed, { encoderWait: { waitMs: 60_000 } })
    const after = await engineWith(embed, { encoderWait: { waitMs: 60_000 } })
    await after.e.encodings.encodeSections(after.sections())
    for (const strategy of ['cart', 'rag'] as const)
      for (const question of QUESTIONS) {
        const a = await before.e.ask('cor_1', { question, strategy })
        const b = await after.e.ask('cor_1', { question, strategy })
        expect([question, b.answered]).toEqual([question, a.answered])
        expect(b.metrics.support).toBeCloseTo(a.metrics.support, 2)
        expect(b.answered).toBe(b.metrics.support >= SUPPORT_THRESHOLD)
      }
    expect(before.e.encodings.stats().embedded).toBeGreaterThan(0)
    expect(after.e.encodings.stats()).toMatchObject({ embedded: 0, timedOut: 0, failed: 0 })
    expect(after.e.encodings.stats().asked).toBe(before.e.encodings.stats().asked)
  }, 120_000)
})
