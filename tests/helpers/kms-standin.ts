// A stand-in KMS on loopback speaking the AWS KMS JSON protocol (POST / with `X-Amz-Target:
// TrentService.<Operation>` and `application/x-amz-json-1.1` bodies, blobs in base64), so that the
// unchanged @aws-sdk/client-kms talks to it as to AWS or an on-prem KMS. Keys have versions of
// key material (RotateKeyOnDemand adds one) and can be disabled; its ciphertext blobs are its own
// format: "SKMS", the key id, the material version, then AES-256-GCM over the plaintext bound to
// the encryption context. It checks that requests are SigV4-signed with the expected access key.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'

interface StandinKey {
  id: string
  arn: string
  enabled: boolean
  versions: Buffer[]
}

/** What a test holds of the running stand-in. */
export interface KmsStandin {
  url: string
  /** Operations received, in order (`GenerateDataKey`, `Decrypt`, ...). */
  calls: string[]
  /** Each operation's count. */
  count(op: string): number
  /** Makes a key; returns its id. */
  createKey(id?: string): string
  disable(id: string): void
  enable(id: string): void
  /** New key material for the key (as AWS's on-demand rotation); old blobs still decrypt. */
  rotate(id: string): void
  /** Every request fails as if the KMS were down (`ServiceUnavailable`, 503) while true. */
  down: boolean
  /** Every Authorization header seen (the test checks no secret travels in the clear). */
  authorizations: string[]
  stop(): void
}

const MAGIC = Buffer.from('SKMS')

/** Starts the stand-in on 127.0.0.1 and a free port; `accessKeyId` is the key requests must be signed with. */
export function startKmsStandin(accessKeyId = 'AKIASTANDIN000000000'): KmsStandin {
  const keys = new Map<string, StandinKey>()
  const calls: string[] = []
  const authorizations: string[] = []
  const state = { down: false }

  const createKey = (id: string = crypto.randomUUID()) => {
    keys.set(id, {
      id,
      arn: `arn:aws:kms:us-east-1:111122223333:key/${id}`,
      enabled: true,
      versions: [randomBytes(32)],
    })
    return id
  }
  const find = (keyId: unknown): StandinKey => {
    const s = String(keyId ?? '')
    const k = keys.get(s) ?? [...keys.values()].find((x) => x.arn === s)
    if (!k) throw new KmsError('NotFoundException', `Key '${s}' does not exist`)
    return k
  }
  const usable = (k: StandinKey) => {
    if (!k.enabled) throw new KmsError('DisabledException', `${k.arn} is disabled.`)
    return k
  }
  const aad = (ctx: unknown) => Buffer.from(JSON.stringify(Object.entries((ctx ?? {}) as object).sort()))

  const encrypt = (k: StandinKey, plain: Buffer, ctx: unknown): Buffer => {
    const version = k.versions.length - 1
    const iv = randomBytes(12)
    const c = createCipheriv('aes-256-gcm', k.versions[version]!, iv)
    c.setAAD(aad(ctx))
    const body = Buffer.concat([c.update(plain), c.final(), c.getAuthTag()])
    const id = Buffer.from(k.id)
    return Buffer.concat([MAGIC, Buffer.from([id.length]), id, Buffer.from([version]), iv, body])
  }
  const decrypt = (blob: Buffer, ctx: unknown): { key: StandinKey; plain: Buffer } => {
    if (blob.length < 6 || !blob.subarray(0, 4).equals(MAGIC))
      throw new KmsError('InvalidCiphertextException', '')
    const idLen = blob[4]!
    const key = usable(find(blob.subarray(5, 5 + idLen).toString()))
    const at = 5 + idLen
    const material = key.versions[blob[at]!]
    if (!material) throw new KmsError('InvalidCiphertextException', '')
    const iv = blob.subarray(at + 1, at + 13)
    const d = createDecipheriv('aes-256-gcm', material, iv)
    d.setAAD(aad(ctx))
    d.setAuthTag(blob.subarray(blob.length - 16))
    try {
      return { key, plain: Buffer.concat([d.update(blob.subarray(at + 13, blob.length - 16)), d.final()]) }
    } catch {
      throw new KmsError('InvalidCiphertextException', '')
    }
  }
  const b64 = (b: Buffer) => b.toString('base64')
  const blobOf = (v: unknown) => Buffer.from(String(v ?? ''), 'base64')

  const ops: Record<string, (b: Record<string, unknown>) => unknown> = {
    CreateKey: () => {
      const id = createKey()
      return { KeyMetadata: { KeyId: id, Arn: keys.get(id)!.arn, Enabled: true, KeyState: 'Enabled' } }
    },
    DescribeKey: (b) => {
      const k = find(b.KeyId)
      return {
        KeyMetadata: {
          KeyId: k.id,
          Arn: k.arn,
          Enabled: k.enabled,
          KeyState: k.enabled ? 'Enabled' : 'Disabled',
        },
      }
    },
    GenerateDataKey: (b) => {
      const k = usable(find(b.KeyId))
      const n = b.KeySpec === 'AES_128' ? 16 : Number(b.NumberOfBytes ?? 32)
      const plain = randomBytes(n)
      return {
        KeyId: k.arn,
        Plaintext: b64(plain),
        CiphertextBlob: b64(encrypt(k, plain, b.EncryptionContext)),
      }
    },
    Encrypt: (b) => {
      const k = usable(find(b.KeyId))
      return { KeyId: k.arn, CiphertextBlob: b64(encrypt(k, blobOf(b.Plaintext), b.EncryptionContext)) }
    },
    Decrypt: (b) => {
      const { key, plain } = decrypt(blobOf(b.CiphertextBlob), b.EncryptionContext)
      if (b.KeyId !== undefined && find(b.KeyId) !== key) throw new KmsError('IncorrectKeyException', '')
      return { KeyId: key.arn, Plaintext: b64(plain) }
    },
    ReEncrypt: (b) => {
      const { key, plain } = decrypt(blobOf(b.CiphertextBlob), b.SourceEncryptionContext)
      const dest = usable(find(b.DestinationKeyId))
      const blob = encrypt(dest, plain, b.DestinationEncryptionContext)
      return { SourceKeyId: key.arn, KeyId: dest.arn, CiphertextBlob: b64(blob) }
    },
    RotateKeyOnDemand: (b) => {
      const k = usable(find(b.KeyId))
      k.versions.push(randomBytes(32))
      return { KeyId: k.id }
    },
  }

  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      const target = req.headers.get('x-amz-target') ?? ''
      const op = target.startsWith('TrentService.') ? target.slice('TrentService.'.length) : ''
      calls.push(op)
      const auth = req.headers.get('authorization') ?? ''
      authorizations.push(auth)
      const reply = (status: number, body: unknown) =>
        new Response(JSON.stringify(body), {
          status,
          headers: { 'content-type': 'application/x-amz-json-1.1' },
        })
      if (state.down) return reply(503, { __type: 'ServiceUnavailableException', message: 'down' })
      if (
        req.method !== 'POST' ||
        !req.headers.get('content-type')?.startsWith('application/x-amz-json-1.1')
      ) {
        return reply(400, { __type: 'SerializationException', message: 'not the KMS JSON protocol' })
      }
      if (!auth.startsWith('AWS4-HMAC-SHA256 ') || !auth.includes(`Credential=${accessKeyId}/`)) {
        return reply(400, {
          __type: 'UnrecognizedClientException',
          message: 'The security token is invalid.',
        })
      }
      const handler = ops[op]
      if (!handler) return reply(400, { __type: 'UnknownOperationException', message: op })
      try {
        return reply(200, handler((await req.json()) as Record<string, unknown>))
      } catch (e) {
        if (e instanceof KmsError) return reply(400, { __type: e.type, message: e.message })
        throw e
      }
    },
  })

  return {
    url: `http://127.0.0.1:${server.port}`,
    calls,
    count: (op) => calls.filter((c) => c === op).length,
    createKey,
    disable: (id) => {
      find(id).enabled = false
    },
    enable: (id) => {
      find(id).enabled = true
    },
    rotate: (id) => {
      find(id).versions.push(randomBytes(32))
    },
    get down() {
      return state.down
    },
    set down(v: boolean) {
      state.down = v
    },
    authorizations,
    stop: () => server.stop(true),
  }
}

class KmsError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message)
  }
}
