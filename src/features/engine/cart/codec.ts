import { deflateSync, inflateSync } from 'node:zlib'
import { sha256Hex } from '../../../platform/crypto/hash'
import { defaultWeights, type ScoreWeights } from '../rank/index'
import { type CartridgeData, type WarmCartridge, warmCartridge } from './cartridge'

/**
 * Format version written in every cartridge; decoding refuses versions it does not know. Version 2
 * added the terms' noun senses; a version 1 cartridge still loads, without them (a forced retrain
 * recompiles it).
 */
export const CARTRIDGE_VERSION = 2

/** A cartridge's content address: identical text (under one format version) shares one cartridge. */
export function contentKey(text: string): string {
  return `v${CARTRIDGE_VERSION}-${sha256Hex(text)}`
}
const MAGIC = [0x45, 0x4e, 0x47, 0x43] // "ENGC"
const WEIGHT_KEYS = Object.keys(defaultWeights) as (keyof ScoreWeights)[]

/**
 * The writer's buffer, reused from one cartridge to the next: a fresh zeroed 64 KB buffer for each
 * cost a fifth of a small section's compile. Only the bytes written are read (and deflated into a
 * new buffer) before the next cartridge starts, so leftovers of an earlier one never leak out.
 */
let scratch = new Uint8Array(1 << 16)
/** Largest buffer kept between cartridges: a huge section's buffer is not held for ever. */
const SCRATCH_MAX = 4 << 20
const utf8 = new TextEncoder()

class Writer {
  private buf = scratch
  len = 0
  private room(n: number): void {
    if (this.len + n <= this.buf.length) return
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.len + n))
    next.set(this.buf.subarray(0, this.len))
    this.buf = next
    if (next.length <= SCRATCH_MAX) scratch = next
  }
  uint(v: number): void {
    this.room(5)
    let x = v >>> 0
    while (x >= 0x80) {
      this.buf[this.len++] = (x & 0x7f) | 0x80
      x >>>= 7
    }
    this.buf[this.len++] = x
  }
  /** Unsigned ints, each as the difference from the previous when `delta` (offsets, spans). */
  uints(a: ArrayLike<number>, delta = false): void {
    this.uint(a.length)
    let prev = 0
    for (let i = 0; i < a.length; i++) {
      this.uint(delta ? a[i]! - prev : a[i]!)
      prev = a[i]!
    }
  }
  bytes(b: Uint8Array): void {
    this.uint(b.length)
    this.room(b.length)
    this.buf.set(b, this.len)
    this.len += b.length
  }
  str(s: string): void {
    this.bytes(utf8.encode(s))
  }
  done(): Uint8Array {
    return this.buf.subarray(0, this.len)
  }
}

class Reader {
  pos = 0
  constructor(private readonly buf: Uint8Array) {}
  uint(): number {
    let x = 0
    let shift = 0
    for (;;) {
      if (this.pos >= this.buf.length) throw new Error('cartridge is truncated')
      const b = this.buf[this.pos++]!
      x += (b & 0x7f) * 2 ** shift
      if (b < 0x80) return x
      shift += 7
    }
  }
  uints(delta = false): Uint32Array {
    const out = new Uint32Array(this.uint())
    let prev = 0
    for (let i = 0; i < out.length; i++) {
      out[i] = delta ? prev + this.uint() : this.uint()
      prev = out[i]!
    }
    return out
  }
  bytes(): Uint8Array {
    const n = this.uint()
    if (this.pos + n > this.buf.length) throw new Error('cartridge is truncated')
    const out = this.buf.subarray(this.pos, this.pos + n)
    this.pos += n
    return out
  }
  str(): string {
    return new TextDecoder().decode(this.bytes())
  }
}

/**
 * Serialises a cartridge: a 4-byte magic and a version byte, then the deflated body of varint
 * arrays (offsets delta-coded) and UTF-8 strings. Derived look-up structures are not stored; they
 * are rebuilt on load.
 */
export function encodeCartridge(c: CartridgeData): Uint8Array {
  const w = new Writer()
  w.str(c.text)
  w.str(c.vocab.join('\n'))
  w.uints(Array.from(c.vocabSense, (s) => s + 1))
  w.uints(c.sents, true)
  w.uints(c.passages, true)
  w.uints(c.sentTerms)
  w.uints(c.sentOff, true)
  // Most words are of no special kind: store the positions of the others and their kinds.
  const at: number[] = []
  const kinds: number[] = []
  c.sentKinds.forEach((k, i) => {
    if (k !== 0) {
      at.push(i)
      kinds.push(k)
    }
  })
  w.uints(at, true)
  w.bytes(Uint8Array.from(kinds))
  w.uints(c.expTerms)
  w.uints(c.expOff, true)
  w.uint(WEIGHT_KEYS.length)
  const f = new Float32Array(WEIGHT_KEYS.map((k) => c.weights[k]))
  w.bytes(new Uint8Array(f.buffer))
  const body = deflateSync(w.done(), { level: 1 })
  const out = new Uint8Array(5 + body.length)
  out.set(MAGIC, 0)
  out[4] = CARTRIDGE_VERSION
  out.set(body, 5)
  return out
}

/**
 * The text a cartridge holds when its bytes are whole, else null: its header checked and its data
 * inflated (deflate's checksum covers it), without building the warm copy decoding makes.
 */
export function cartridgeText(bytes: Uint8Array): string | null {
  if (bytes.length < 5 || MAGIC.some((b, i) => bytes[i] !== b)) return null
  if (bytes[4]! < 1 || bytes[4]! > CARTRIDGE_VERSION) return null
  try {
    return new Reader(new Uint8Array(inflateSync(bytes.subarray(5)))).str()
  } catch {
    return null
  }
}

/** Parses bytes written by `encodeCartridge` into a warm copy; throws on a foreign or newer format. */
export function decodeCartridge(bytes: Uint8Array): WarmCartridge {
  if (bytes.length < 5 || MAGIC.some((b, i) => bytes[i] !== b)) throw new Error('not a cartridge')
  const version = bytes[4]!
  if (version < 1 || version > CARTRIDGE_VERSION) throw new Error(`unsupported cartridge version ${version}`)
  const r = new Reader(new Uint8Array(inflateSync(bytes.subarray(5))))
  const text = r.str()
  const vocabText = r.str()
  const vocab = vocabText.length ? vocabText.split('\n') : []
  const vocabSense =
    version >= 2 ? Int32Array.from(r.uints(), (s) => s - 1) : new Int32Array(vocab.length).fill(-1)
  const sents = r.uints(true)
  const passages = r.uints(true)
  const sentTerms = r.uints()
  const sentOff = r.uints(true)
  const at = r.uints(true)
  const kindBytes = r.bytes()
  const sentKinds = new Uint8Array(sentTerms.length)
  at.forEach((i, j) => {
    sentKinds[i] = kindBytes[j]!
  })
  const expTerms = r.uints()
  const expOff = r.uints(true)
  const nWeights = r.uint()
  const raw = r.bytes()
  const f = new Float32Array(raw.slice().buffer, 0, nWeights)
  const weights = { ...defaultWeights }
  WEIGHT_KEYS.forEach((k, i) => {
    if (i < nWeights) weights[k] = f[i]!
  })
  return warmCartridge({
    text,
    vocab,
    vocabSense,
    sents,
    passages,
    sentTerms,
    sentKinds,
    sentOff,
    expTerms,
    expOff,
    weights,
  })
}
