// Secrets kept at rest (a source's credentials): AES-256-GCM under a key derived from the instance
// secret with HKDF, one key per purpose. The associated data binds a sealed value to its row, so a
// value copied into another row (another tenant's) does not open.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto'

const VERSION = 'v1'
const IV_BYTES = 12
const TAG_BYTES = 16

/** A value sealed by another secret, for another row, or altered. */
export class SealBroken extends Error {
  override name = 'SealBroken'
}

export class Sealer {
  private readonly key: Buffer

  constructor(secret: string, purpose: string) {
    this.key = Buffer.from(hkdfSync('sha256', secret, 'engram-sealed', purpose, 32))
  }

  /** Encrypts `plaintext` bound to `context` (the row's id); the result is text safe to store. */
  seal(plaintext: string, context: string): string {
    const iv = randomBytes(IV_BYTES)
    const cipher = createCipheriv('aes-256-gcm', this.key, iv)
    cipher.setAAD(Buffer.from(context, 'utf8'))
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
    return `${VERSION}.${Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url')}`
  }

  /** Decrypts what `seal` made for the same context; throws SealBroken otherwise. */
  open(sealed: string, context: string): string {
    const [version, data] = sealed.split('.', 2)
    if (version !== VERSION || !data) throw new SealBroken('Unknown sealed value format.')
    const raw = Buffer.from(data, 'base64url')
    if (raw.length < IV_BYTES + TAG_BYTES) throw new SealBroken('Sealed value too short.')
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, IV_BYTES))
    decipher.setAAD(Buffer.from(context, 'utf8'))
    decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES))
    try {
      return Buffer.concat([
        decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)),
        decipher.final(),
      ]).toString('utf8')
    } catch {
      throw new SealBroken('The sealed value does not open with this secret and context.')
    }
  }
}
