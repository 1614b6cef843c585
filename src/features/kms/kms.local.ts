// The `local` provider: for installs without a KMS, the workspace key is 32 random bytes Engram
// holds itself, sealed under the server secret (platform/crypto/sealed). Each rotation adds a
// version; a wrapped data key names the version that wrapped it, so objects not yet re-wrapped
// still open while a rotation runs. Older versions wrap nothing new but are kept: an upload that
// took its data key before a rotation and lands after the pass went by still names one.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import type { Sealer } from '../../platform/crypto/sealed'
import type { DataKey } from '../../platform/storage/envelope-store'

/** One version of a workspace's local key, as stored (`workspace_keys.local_keys`). */
interface StoredVersion {
  version: number
  sealed: string
}

/** The first byte of a data key wrapped by a local key. */
export const LOCAL_TAG = 0x4c
const IV = 12
const TAG = 16

/** A wrapped key that no version of the workspace's local key opens (altered, or from elsewhere). */
export class LocalUnwrapFailed extends Error {
  override name = 'LocalUnwrapFailed'
}

/** Makes, wraps and unwraps data keys under workspaces' local keys. */
export class LocalKeys {
  /** Unsealed keys by their sealed text: unsealing derives nothing secret twice. */
  private readonly open = new Map<string, Buffer>()

  constructor(private readonly sealer: Sealer) {}

  /** The first version of a new workspace key, as `local_keys` stores it. */
  create(workspaceId: string): string {
    return JSON.stringify([this.newVersion(workspaceId, 1)])
  }

  /** `local_keys` with one more version, which wraps new data keys from now on. */
  rotate(workspaceId: string, localKeys: string): string {
    const versions = parse(localKeys)
    const next = Math.max(...versions.map((v) => v.version)) + 1
    return JSON.stringify([...versions, this.newVersion(workspaceId, next)])
  }

  /** A fresh data key wrapped by the current version. */
  generate(workspaceId: string, localKeys: string): DataKey {
    const plaintext = randomBytes(32)
    return { plaintext, wrapped: this.wrap(workspaceId, current(parse(localKeys)), plaintext) }
  }

  /** The data key `wrapped` holds. */
  unwrap(workspaceId: string, localKeys: string, wrapped: Uint8Array): Uint8Array {
    const w = Buffer.from(wrapped)
    if (w.length < 5 + IV + TAG || w[0] !== LOCAL_TAG)
      throw new LocalUnwrapFailed('not a locally wrapped key')
    const version = w.readUInt32BE(1)
    const v = parse(localKeys).find((x) => x.version === version)
    if (!v) throw new LocalUnwrapFailed(`no version ${version} of the workspace key`)
    const d = createDecipheriv('aes-256-gcm', this.keyOf(workspaceId, v), w.subarray(5, 5 + IV))
    d.setAAD(Buffer.from(workspaceId))
    d.setAuthTag(w.subarray(w.length - TAG))
    try {
      return Buffer.concat([d.update(w.subarray(5 + IV, w.length - TAG)), d.final()])
    } catch {
      throw new LocalUnwrapFailed('the wrapped key does not open')
    }
  }

  /** `wrapped` re-wrapped by the current version, or null when that version already wrapped it. */
  rewrap(workspaceId: string, localKeys: string, wrapped: Uint8Array): Uint8Array | null {
    const now = current(parse(localKeys))
    if (wrapped[0] === LOCAL_TAG && Buffer.from(wrapped).readUInt32BE(1) === now.version) return null
    return this.wrap(workspaceId, now, this.unwrap(workspaceId, localKeys, wrapped))
  }

  private wrap(workspaceId: string, v: StoredVersion, plaintext: Uint8Array): Uint8Array {
    const iv = randomBytes(IV)
    const c = createCipheriv('aes-256-gcm', this.keyOf(workspaceId, v), iv)
    // Bound to the workspace: a wrapped key copied into another workspace's object does not open.
    c.setAAD(Buffer.from(workspaceId))
    const head = Buffer.alloc(5)
    head[0] = LOCAL_TAG
    head.writeUInt32BE(v.version, 1)
    return Buffer.concat([head, iv, c.update(plaintext), c.final(), c.getAuthTag()])
  }

  private keyOf(workspaceId: string, v: StoredVersion): Buffer {
    let key = this.open.get(v.sealed)
    if (!key) {
      key = Buffer.from(this.sealer.open(v.sealed, `${workspaceId}:${v.version}`), 'base64')
      this.open.set(v.sealed, key)
    }
    return key
  }

  private newVersion(workspaceId: string, version: number): StoredVersion {
    const key = randomBytes(32).toString('base64')
    return { version, sealed: this.sealer.seal(key, `${workspaceId}:${version}`) }
  }
}

function parse(localKeys: string): StoredVersion[] {
  return JSON.parse(localKeys) as StoredVersion[]
}

function current(versions: StoredVersion[]): StoredVersion {
  return versions.reduce((a, b) => (b.version > a.version ? b : a))
}
