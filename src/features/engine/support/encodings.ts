import { ENCODER_MAX_CHARS, EncoderCache, type EncoderEmbed, encoderSignals } from './encoder-check'

/**
 * A passage's vector under the built-in encoder as stored at onboarding: its scale (a float32) then
 * one signed byte per dimension, 516 bytes for USE lite's 512 (a quarter of the floats'). The
 * support check reads only cosines, which the rounding moves by about a thousandth.
 */
export function quantize(v: Float32Array): Uint8Array {
  let max = 0
  for (const x of v) max = Math.max(max, Math.abs(x))
  const scale = max > 0 ? max / 127 : 1
  const out = new Uint8Array(4 + v.length)
  new DataView(out.buffer).setFloat32(0, scale, true)
  const q = new Int8Array(out.buffer, 4)
  for (let i = 0; i < v.length; i++) q[i] = Math.round(v[i]! / scale)
  return out
}

/** The unit-length vector of a stored encoding (quantize). */
export function dequantize(bytes: Uint8Array): Float32Array {
  const scale = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getFloat32(0, true)
  const q = new Int8Array(bytes.buffer, bytes.byteOffset + 4, bytes.byteLength - 4)
  const v = new Float32Array(q.length)
  let n = 0
  for (let i = 0; i < q.length; i++) {
    const x = q[i]! * scale
    v[i] = x
    n += x * x
  }
  const inv = n > 0 ? 1 / Math.sqrt(n) : 0
  for (let i = 0; i < v.length; i++) v[i]! *= inv
  return v
}

/**
 * The wait of a question that finds the encoder's thread starting (the first after start-up or an
 * idle stop): its model loads in about a tenth of a second (a second with TensorFlow.js before),
 * more on a loaded machine, and the question waits for it rather than be decided on its words.
 * Bounded all the same.
 */
export const ENCODER_START_WAIT_MS = 5000

/** A passage the support check asks the encoder about: where it is, and the text the answer quotes. */
export interface CheckedPassage {
  sectionId: string
  ordinal: number
  text: string
}

/** The encoder's `model` signal of each passage for a question; empty when it could not say in time. */
export type SupportEncoder = (question: string, passages: CheckedPassage[]) => Promise<(number | null)[]>

/** What the check counts (Engine.encoderStats): asks, encoder passes, and answers given without it. */
export interface EncoderCheckStats {
  /** Questions the check asked the encoder about. */
  asked: number
  /** Requests sent to the encoder (one per question not asked before; passages come stored). */
  passes: number
  /** Passages whose stored encoding was used. */
  stored: number
  /** Passages embedded with the question: their base is still being encoded. */
  embedded: number
  /** Questions decided without the encoder because it had not answered within the wait. */
  timedOut: number
  /** Questions decided without it because it failed or was busy. */
  failed: number
}

/** How an EncoderCheck reaches the encoder, the stored encodings, and a timer. */
export interface EncoderCheckOptions {
  /** The built-in encoder (EncoderThread.embed). */
  embed: EncoderEmbed
  /** The passages' encodings made at onboarding, null where a passage has none yet. */
  stored(passages: CheckedPassage[]): (Float32Array | null)[]
  /** Milliseconds a question waits for the encoder; past them it is decided on its words. */
  waitMs: number
  /**
   * Whether the encoder has its model loaded; while it has not (its thread starting, about a
   * second), a question waits up to ENCODER_START_WAIT_MS instead. Always loaded when not given.
   */
  loaded?: () => boolean
  /** Told each time the wait runs out (the engine logs it, at most once a minute). */
  onTimeout?: () => void
  setTimer?: (fn: () => void, ms: number) => unknown
  clearTimer?: (timer: unknown) => void
}

/**
 * The support check's use of the built-in encoder off the hot path: the passages' vectors come from
 * onboarding (stored, int8), so a question costs at most one encoder pass, its own; a passage of a
 * base still being encoded is embedded with it, as before. The wait is bounded: past `waitMs` the
 * question is decided on its words (counted in `stats`), and the encoder's late answer is kept for
 * the next time the question is asked.
 */
export class EncoderCheck {
  readonly stats: EncoderCheckStats = { asked: 0, passes: 0, stored: 0, embedded: 0, timedOut: 0, failed: 0 }
  private readonly cache: EncoderCache

  constructor(private readonly o: EncoderCheckOptions) {
    this.cache = new EncoderCache((texts) => {
      this.stats.passes++
      return o.embed(texts)
    })
  }

  /** The `model` signal of each passage for the question in this base; empty when decided without the encoder. */
  async signals(baseId: string, question: string, passages: CheckedPassage[]): Promise<(number | null)[]> {
    this.stats.asked++
    const stored = this.o.stored(passages)
    const given = stored.map((v, i) => v ?? passages[i]!.text)
    for (const v of stored) v ? this.stats.stored++ : this.stats.embedded++
    let failed = false
    const embed: EncoderEmbed = (texts) =>
      this.cache.vectorsFor(baseId, texts).catch((e) => {
        failed = true
        throw e
      })
    const signals = await this.bounded(encoderSignals(embed, question, given))
    if (signals === null) {
      this.stats.timedOut++
      this.o.onTimeout?.()
      return []
    }
    if (failed) this.stats.failed++
    return signals
  }

  /** The work's result, or null when the wait runs out first. */
  private bounded<T>(work: Promise<T>): Promise<T | null> {
    const setTimer = this.o.setTimer ?? setTimeout
    const clearTimer = this.o.clearTimer ?? ((t) => clearTimeout(t as Parameters<typeof clearTimeout>[0]))
    return new Promise((resolve) => {
      const starting = this.o.loaded ? !this.o.loaded() : false
      const timer = setTimer(() => resolve(null), starting ? ENCODER_START_WAIT_MS : this.o.waitMs)
      ;(timer as { unref?: () => void }).unref?.()
      work.then(
        (v) => {
          clearTimer(timer)
          resolve(v)
        },
        () => {
          clearTimer(timer)
          resolve(null)
        },
      )
    })
  }
}

/**
 * Passages sent to the encoder in one request at onboarding: its time grows with the characters
 * (batching saves nothing), and a question's request waits behind at most one of them.
 */
export const ENCODE_BATCH = 2

/** The stored encodings (quantize) of passages' texts, each cut at ENCODER_MAX_CHARS as at a question. */
export async function encodePassages(embed: EncoderEmbed, texts: string[]): Promise<Uint8Array[]> {
  const vectors = await embed(texts.map((t) => t.slice(0, ENCODER_MAX_CHARS)))
  if (vectors.length !== texts.length) throw new Error('the encoder answered another number of vectors')
  return vectors.map(quantize)
}
