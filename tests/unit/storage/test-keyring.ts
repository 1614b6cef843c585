// A keyring for the envelope store's tests: data keys wrapped with AES-256-GCM under one random key
// per workspace (as the kms feature's local provider does), a set of refused workspaces, and a
// rotation that swaps a workspace's key.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import type { Keyring } from '../../../src/platform/storage/envelope-store'

/** A keyring wrapping data keys with AES-GCM under one key per workspace; `off` refuses a workspace. */
export function testKeyring(plainWorkspaces: string[] = []) {
  const kek = new Map<string, Buffer>()
  const off = new Set<string>()
  const calls = { unwrap: 0, dataKey: 0 }
  const kekOf = (ws: string) => {
    if (!kek.has(ws)) kek.set(ws, randomBytes(32))
    return kek.get(ws)!
  }
  const keyring: Keyring & {
    off: Set<string>
    calls: typeof calls
    rotate(ws: string): Buffer
    wrapWs(ws: string, key: Uint8Array): Uint8Array
  } = {
    off,
    calls,
    wrapWs: (ws, key) => wrap(kekOf(ws), key),
    rotate(ws) {
      const old = kekOf(ws)
      kek.set(ws, randomBytes(32))
      return old
    },
    async assertReadable(ws) {
      if (off.has(ws)) throw new Error(`key of ${ws} disabled`)
    },
    async dataKey(ws) {
      if (plainWorkspaces.includes(ws)) return null
      await keyring.assertReadable(ws)
      calls.dataKey++
      const plaintext = randomBytes(32)
      return { plaintext, wrapped: wrap(kekOf(ws), plaintext) }
    },
    async unwrap(ws, wrapped) {
      await keyring.assertReadable(ws)
      calls.unwrap++
      return unwrap(kekOf(ws), wrapped)
    },
  }
  return keyring
}

export function wrap(kek: Buffer, key: Uint8Array): Uint8Array {
  const iv = randomBytes(12)
  const c = createCipheriv('aes-256-gcm', kek, iv)
  return Buffer.concat([iv, c.update(key), c.final(), c.getAuthTag()])
}

export function unwrap(kek: Buffer, wrapped: Uint8Array): Uint8Array {
  const w = Buffer.from(wrapped)
  const d = createDecipheriv('aes-256-gcm', kek, w.subarray(0, 12))
  d.setAuthTag(w.subarray(w.length - 16))
  return Buffer.concat([d.update(w.subarray(12, w.length - 16)), d.final()])
}
