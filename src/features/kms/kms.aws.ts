// The `aws-kms` provider: data keys made and opened by AWS KMS, or by any KMS speaking its JSON API
// at a configured endpoint (an on-prem KMS), through the unchanged `@aws-sdk/client-kms`. The server
// signs with the configured access key or, without one, the SDK's default chain (environment,
// shared files, instance or task role); credentials never leave this file's client.

import { Agent as HttpAgent } from 'node:http'
import { Agent as HttpsAgent } from 'node:https'
import type { LookupFunction } from 'node:net'
import type { KMSClient, KMSClientConfig } from '@aws-sdk/client-kms'
import type { Config } from '../../platform/config/config.load'
import type { Resolver } from '../../platform/net/egress'
import type { DataKey } from '../../platform/storage/envelope-store'
import { kmsLookup } from './kms.endpoint'

/** The SDK, loaded at the first KMS call: its modules are about 4 MB of a server that may never call one. */
type Sdk = typeof import('@aws-sdk/client-kms')
let sdk: Promise<Sdk> | null = null

/** The first byte of a data key wrapped by the KMS (its ciphertext blob follows). */
export const AWS_TAG = 0x41

/** Where a workspace's key lives. */
export interface AwsKeyRef {
  keyId: string
  endpoint: string | null
  region: string | null
}

/** The KMS refused or could not be reached; `reason` is its error name (never its credentials). */
export class KmsRefused extends Error {
  override name = 'KmsRefused'
  constructor(readonly reason: string) {
    super(`The KMS refused the request (${reason}).`)
  }
}

/** Makes, opens and re-wraps data keys through the KMS, one client per endpoint and region. */
export class AwsKeys {
  private readonly clients = new Map<string, KMSClient>()
  /** Every connection's host is resolved through the outbound guard (kms.endpoint.ts). */
  private readonly lookup: LookupFunction

  /** `resolve`: another resolver for the guard (tests). */
  constructor(
    private readonly config: Config['kms'],
    resolve?: Resolver,
  ) {
    this.lookup = kmsLookup(config, resolve)
  }

  /** A fresh 256-bit data key and the KMS's wrapping of it, bound to the workspace. */
  async generate(workspaceId: string, ref: AwsKeyRef): Promise<DataKey> {
    const out = await this.call(ref, (c, kms) =>
      c.send(
        new kms.GenerateDataKeyCommand({
          KeyId: ref.keyId,
          KeySpec: 'AES_256',
          EncryptionContext: context(workspaceId),
        }),
      ),
    )
    if (!out.Plaintext || !out.CiphertextBlob) throw new KmsRefused('EmptyResponse')
    return { plaintext: out.Plaintext, wrapped: tagged(out.CiphertextBlob) }
  }

  /** The data key `wrapped` holds. */
  async unwrap(workspaceId: string, ref: AwsKeyRef, wrapped: Uint8Array): Promise<Uint8Array> {
    if (wrapped[0] !== AWS_TAG) throw new KmsRefused('NotAKmsWrappedKey')
    const out = await this.call(ref, (c, kms) =>
      c.send(
        new kms.DecryptCommand({
          CiphertextBlob: wrapped.subarray(1),
          EncryptionContext: context(workspaceId),
        }),
      ),
    )
    if (!out.Plaintext) throw new KmsRefused('EmptyResponse')
    return out.Plaintext
  }

  /** `wrapped` re-wrapped by `ref`'s key (its newest material) inside the KMS: the data key never comes out. */
  async rewrap(workspaceId: string, ref: AwsKeyRef, wrapped: Uint8Array): Promise<Uint8Array> {
    if (wrapped[0] !== AWS_TAG) throw new KmsRefused('NotAKmsWrappedKey')
    const out = await this.call(ref, (c, kms) =>
      c.send(
        new kms.ReEncryptCommand({
          CiphertextBlob: wrapped.subarray(1),
          DestinationKeyId: ref.keyId,
          SourceEncryptionContext: context(workspaceId),
          DestinationEncryptionContext: context(workspaceId),
        }),
      ),
    )
    if (!out.CiphertextBlob) throw new KmsRefused('EmptyResponse')
    return tagged(out.CiphertextBlob)
  }

  /** A round trip (make a data key, open it): the key exists, is enabled, and we may use it. */
  async probe(workspaceId: string, ref: AwsKeyRef): Promise<void> {
    const dk = await this.generate(workspaceId, ref)
    const back = await this.unwrap(workspaceId, ref, dk.wrapped)
    if (!Buffer.from(back).equals(Buffer.from(dk.plaintext))) throw new KmsRefused('RoundTripMismatch')
  }

  /** Stops every client (at shutdown). */
  close(): void {
    for (const c of this.clients.values()) c.destroy()
    this.clients.clear()
  }

  /** Runs one KMS call; any failure becomes KmsRefused naming the KMS's error, nothing more. */
  private async call<T>(ref: AwsKeyRef, fn: (c: KMSClient, kms: Sdk) => Promise<T>): Promise<T> {
    try {
      sdk ??= import('@aws-sdk/client-kms')
      const kms = await sdk
      return await fn(this.client(ref, kms), kms)
    } catch (e) {
      const name = (e as { name?: unknown }).name
      throw new KmsRefused(typeof name === 'string' && /^[A-Za-z.]{1,80}$/.test(name) ? name : 'KmsError')
    }
  }

  private client(ref: AwsKeyRef, kms: Sdk): KMSClient {
    const region = ref.region ?? this.config.aws_region
    const id = `${ref.endpoint ?? ''} ${region}`
    let c = this.clients.get(id)
    if (!c) {
      const o: KMSClientConfig = {
        region,
        maxAttempts: 2,
        requestHandler: {
          requestTimeout: this.config.timeout_ms,
          connectionTimeout: this.config.timeout_ms,
          // Without it a request past its timeout only logs a warning and waits on.
          throwOnRequestTimeout: true,
          httpAgent: new HttpAgent({ keepAlive: true, lookup: this.lookup }),
          httpsAgent: new HttpsAgent({ keepAlive: true, lookup: this.lookup }),
        },
      }
      if (ref.endpoint) o.endpoint = ref.endpoint
      const { aws_access_key_id: accessKeyId, aws_secret_access_key: secretAccessKey } = this.config
      if (accessKeyId && secretAccessKey) o.credentials = { accessKeyId, secretAccessKey }
      c = new kms.KMSClient(o)
      this.clients.set(id, c)
    }
    return c
  }
}

/** The encryption context every data key of a workspace is bound to (KMS audit logs show it). */
function context(workspaceId: string): Record<string, string> {
  return { engram_workspace: workspaceId }
}

function tagged(blob: Uint8Array): Uint8Array {
  const out = new Uint8Array(blob.byteLength + 1)
  out[0] = AWS_TAG
  out.set(blob, 1)
  return out
}
