import { describe, expect, test } from 'bun:test'
import { deflateSync, inflateSync } from 'node:zlib'
import {
  CARTRIDGE_VERSION,
  cartEntry,
  compileCartridge,
  decodeCartridge,
  encodeCartridge,
  fitCartridge,
  internTerm,
  landsOn,
  localId,
  localTerm,
  searchCartridges,
  selfTest,
  synthesize,
} from '../../../src/features/engine/cart/index'
import { planQuery } from '../../../src/features/engine/rank/index'
import { docs } from './fixture'

const text = docs.map((d) => d.text).join('\n\n')

describe('cartridges', () => {
  test('every term of a cartridge is found by its global number, and terms it lacks are not', () => {
    const cart = compileCartridge(docs.map((d) => d.text).join('\n\n'))
    cart.vocab.forEach((term, id) => {
      expect(localTerm(cart, term)).toBe(id)
      expect(localId(cart, internTerm(term))).toBe(id)
    })
    // Terms known to the process but not to this cartridge: the bit filter or the search says no.
    const absent = Array.from({ length: 2000 }, (_, i) => internTerm(`absentterm${i}`))
    expect(absent.every((g) => localId(cart, g) === -1)).toBe(true)
  })

  test('encode then decode gives back the same cartridge, answering the same way', () => {
    const cart = compileCartridge(text, { fit: fitCartridge })
    const bytes = encodeCartridge(cart)
    expect([...bytes.subarray(0, 5)]).toEqual([0x45, 0x4e, 0x47, 0x43, CARTRIDGE_VERSION])
    const back = decodeCartridge(bytes)
    for (const k of [
      'text',
      'vocab',
      'sents',
      'passages',
      'sentTerms',
      'sentKinds',
      'sentOff',
      'vocabSense',
      'expTerms',
      'expOff',
    ] as const)
      expect(back[k]).toEqual(cart[k])
    for (const [k, v] of Object.entries(cart.weights))
      expect(back.weights[k as keyof typeof cart.weights]).toBeCloseTo(v, 5)
    const plan = planQuery('Who discovered oxygen in Uppsala?')
    const a = searchCartridges([cartEntry(1, cart)], plan, 3)
    const b = searchCartridges([cartEntry(1, back)], plan, 3)
    expect(b.map((p) => [p.start, p.end, p.sentences[0]!.start])).toEqual(
      a.map((p) => [p.start, p.end, p.sentences[0]!.start]),
    )
  })

  test('decoding refuses foreign bytes, another version and truncated data', () => {
    const bytes = encodeCartridge(compileCartridge(text))
    expect(() => decodeCartridge(new Uint8Array([1, 2, 3, 4, 5, 6]))).toThrow('not a cartridge')
    const newer = bytes.slice()
    newer[4] = CARTRIDGE_VERSION + 1
    expect(() => decodeCartridge(newer)).toThrow('unsupported cartridge version')
    expect(() => decodeCartridge(bytes.subarray(0, bytes.length - 10))).toThrow()
  })

  test('a version 1 cartridge (before noun senses) still loads, its terms without senses', () => {
    const cart = compileCartridge(text)
    expect([...cart.vocabSense].some((s) => s >= 0)).toBe(true)
    // Version 1 is version 2 without the sense list that follows the vocabulary.
    const body = new Uint8Array(inflateSync(encodeCartridge(cart).subarray(5)))
    let pos = 0
    const varint = () => {
      let x = 0
      for (let shift = 0; ; shift += 7) {
        const b = body[pos++]!
        x += (b & 0x7f) * 2 ** shift
        if (b < 0x80) return x
      }
    }
    for (let i = 0; i < 2; i++) {
      const length = varint() // text, vocabulary
      pos += length
    }
    const sensesAt = pos
    for (let n = varint(); n > 0; n--) varint()
    const v1Body = new Uint8Array([...body.subarray(0, sensesAt), ...body.subarray(pos)])
    const v1 = new Uint8Array([0x45, 0x4e, 0x47, 0x43, 1, ...deflateSync(v1Body)])
    const back = decodeCartridge(v1)
    expect(back.sentTerms).toEqual(cart.sentTerms)
    expect(back.vocabSense).toEqual(new Int32Array(cart.vocab.length).fill(-1))
  })

  test('a question synthesised from a sentence lands on that sentence', () => {
    const cart = compileCartridge(text)
    const sentence = (i: number) => cart.text.slice(cart.sents[2 * i]!, cart.sents[2 * i + 1]!)
    const s = Array.from({ length: cart.sents.length / 2 }, (_, i) => i).find((i) =>
      sentence(i).startsWith('Carl'),
    )!
    expect(sentence(s)).toBe('Carl Wilhelm Scheele discovered oxygen in Uppsala by 1773.')
    const q = synthesize(cart, s)!
    expect(q.plan.want).not.toBe(0)
    expect(landsOn(cart, q.plan)).toBe(s)
    const { questions, landed } = selfTest(cart)
    expect(questions).toBeGreaterThan(10)
    expect(landed / questions).toBeGreaterThan(0.8)
  })
})
