import { describe, expect, test } from 'bun:test'
import { SealBroken, Sealer } from '../../../src/platform/crypto/sealed'

describe('sealed secrets', () => {
  const sealer = new Sealer('s'.repeat(40), 'engram/sources/credentials')

  test('a sealed value opens for its own row and nowhere else', () => {
    const sealed = sealer.seal('{"secret_key":"hunter2"}', 'conn_a')
    expect(sealed).not.toContain('hunter2')
    expect(sealer.open(sealed, 'conn_a')).toBe('{"secret_key":"hunter2"}')
    expect(() => sealer.open(sealed, 'conn_b')).toThrow(SealBroken)
  })

  test('another instance secret or purpose, or a changed byte, does not open it', () => {
    const sealed = sealer.seal('value', 'conn_a')
    expect(() => new Sealer('t'.repeat(40), 'engram/sources/credentials').open(sealed, 'conn_a')).toThrow(
      SealBroken,
    )
    expect(() => new Sealer('s'.repeat(40), 'another purpose').open(sealed, 'conn_a')).toThrow(SealBroken)
    const raw = Buffer.from(sealed.slice(3), 'base64url')
    raw[14] = raw[14]! ^ 1
    expect(() => sealer.open(`v1.${raw.toString('base64url')}`, 'conn_a')).toThrow(SealBroken)
  })

  test('sealing twice gives two different texts (a fresh nonce each time)', () => {
    expect(sealer.seal('same', 'c')).not.toBe(sealer.seal('same', 'c'))
  })
})
