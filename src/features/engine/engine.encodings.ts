import { exclusiveOn } from '../../platform/db/store'
import type { VectorRepo } from './engine.vectors.repo'
import {
  type CheckedPassage,
  dequantize,
  ENCODE_BATCH,
  EncoderCheck,
  type EncoderCheckStats,
  type EncoderEmbed,
  encodePassages,
  type SupportEncoder,
} from './support/index'

/** How long a question waits for the built-in encoder by default (`embed.encoder_wait_ms`). */
export const ENCODER_WAIT_MS = 250

/** How long a question waits for the encoder, whom a wait that ran out is told, and the timers. */
export interface EncodingOptions {
  /** Milliseconds a question waits for the encoder (ENCODER_WAIT_MS by default). */
  waitMs?: number
  /** Told each time a question is decided without the encoder because the wait ran out. */
  onTimeout?: () => void
  /** Whether the encoder's model is loaded (EncoderThread.loaded): a start is waited for longer. */
  loaded?: () => boolean
  setTimer?: (fn: () => void, ms: number) => unknown
  clearTimer?: (timer: unknown) => void
}

/**
 * The passages' vectors under the built-in encoder, for the support check: made once in the
 * background after a base is indexed (the engine's `encode` job: encodeSections), stored int8 in
 * `engine_encodings`, read back when a question is unsure (EncoderCheck). A passage without one yet
 * is embedded with its question, as before.
 */
export class EngineEncodings {
  private readonly check: EncoderCheck | null

  /** `embed`: the built-in encoder (EncoderThread.embed); null when off or beside an embeddings server. */
  constructor(
    private readonly repo: VectorRepo,
    private readonly embed: EncoderEmbed | null,
    o: EncodingOptions = {},
  ) {
    this.check = embed
      ? new EncoderCheck({
          embed,
          stored: (passages) => this.stored(passages),
          waitMs: o.waitMs ?? ENCODER_WAIT_MS,
          onTimeout: o.onTimeout,
          loaded: o.loaded,
          setTimer: o.setTimer,
          clearTimer: o.clearTimer,
        })
      : null
  }

  /** Whether passages are encoded (the built-in encoder is on). */
  get on(): boolean {
    return this.check !== null
  }

  /** The support check's encoder for one base's questions; null when the encoder is off. */
  forBase(baseId: string): SupportEncoder | null {
    const check = this.check
    return check && ((question, passages) => check.signals(baseId, question, passages))
  }

  /** What the check counted since start: questions asked, encoder passes, waits run out. */
  stats(): EncoderCheckStats {
    return {
      ...(this.check?.stats ?? { asked: 0, passes: 0, stored: 0, embedded: 0, timedOut: 0, failed: 0 }),
    }
  }

  /**
   * Encodes the passages of these sections that have none yet, a few a request, and stores them;
   * returns how many were stored. A passage that changed or left meanwhile gets none. Rejects when
   * the encoder fails (what was stored stays). `between` is called between requests (a job's
   * cancel check).
   */
  async encodeSections(sectionIds: string[], between?: () => void): Promise<number> {
    const question = this.embed
    if (!question) return 0
    // Background work: the encoder's thread is let go soon after the last of it (EncoderThread).
    const embed: EncoderEmbed = (texts) => question(texts, true)
    let stored = 0
    for (const id of sectionIds) {
      const pending = this.repo.passagesWithoutEncoding(id)
      for (let i = 0; i < pending.length; i += ENCODE_BATCH) {
        between?.()
        const batch = pending.slice(i, i + ENCODE_BATCH)
        const made = await encodePassages(
          embed,
          batch.map((p) => p.text),
        )
        // On the units' lock: never inside another flow's unit on the same connection (SQLite mode).
        const rows = batch.map((p, j) => ({ ...p, vec: made[j]! }))
        stored += await exclusiveOn(this.repo.client, () => this.repo.putEncodings(rows))
      }
    }
    return stored
  }

  /** Bases with passages not encoded yet (none when the encoder is off). */
  basesWithoutEncodings(): string[] {
    return this.on ? this.repo.basesWithoutEncodings() : []
  }

  /** The stored encodings of these passages, null where one has none yet. */
  private stored(passages: CheckedPassage[]): (Float32Array | null)[] {
    return passages.map((p) => {
      const bytes = this.repo.encoding(p.sectionId, p.ordinal)
      return bytes ? dequantize(bytes) : null
    })
  }
}
