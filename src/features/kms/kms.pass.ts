// A pass over a workspace's objects, run as a durable job after the key is first set or enabled
// again (`encrypt`: objects stored plain before are sealed) and after a rotation (`rotate`: every
// data key is re-wrapped under the key's current version, the content copied unchanged). Each
// counts what it leaves sealed and plain; an object written meanwhile is sealed by its own write.

import type { Clock } from '../../platform/clock/clock'
import type { Store } from '../../platform/db/store'
import type { JobContext } from '../../platform/jobs/handler'
import type { EnvelopeStore } from '../../platform/storage/envelope-store'
import { objectPrefix } from '../../platform/storage/keys'
import type { AwsKeys } from './kms.aws'
import type { KmsKeyring } from './kms.keyring'
import type { LocalKeys } from './kms.local'
import type { KeyRow, KmsRepo } from './kms.repo'

export interface PassDeps {
  /** The pass's own writes (its state, its counts) are units; object work runs outside them. */
  store: Store
  clock: Clock
  repo: KmsRepo
  keyring: KmsKeyring
  envelope: EnvelopeStore
  local: LocalKeys
  aws: AwsKeys
}

/** What a pass did. */
export interface PassResult {
  sealed: number
  rewrapped: number
  encrypted_objects: number
  plaintext_objects: number
}

/** Runs one pass job (`kms.pass`, payload `{ mode }`). A workspace without an enabled key: nothing to do. */
export async function runPass(d: PassDeps, ctx: JobContext): Promise<PassResult | { skipped: string }> {
  const ws = ctx.job.workspaceId
  const mode = (ctx.job.payload as { mode?: string }).mode === 'rotate' ? 'rotate' : 'encrypt'
  const row = await d.repo.get(ws)
  if (!row) return { skipped: 'no key' }
  if (!row.enabled) {
    // Picked up again when the key is enabled (that save queues a pass).
    await d.store.unit(() => d.repo.update(ws, { pass: null }))
    return { skipped: 'key disabled' }
  }
  const out: PassResult = { sealed: 0, rewrapped: 0, encrypted_objects: 0, plaintext_objects: 0 }
  try {
    const keys: string[] = []
    for await (const o of d.envelope.list(objectPrefix(ws))) keys.push(o.key)
    ctx.progress({ unitsTotal: keys.length, unitsDone: 0 })
    for (const [i, key] of keys.entries()) {
      ctx.checkpoint()
      const state = await d.envelope.sealedState(key)
      let sealed = state === true
      if (state === false && (await d.envelope.sealInPlace(key))) {
        out.sealed++
        sealed = true
      } else if (state === true && mode === 'rotate') {
        if (await d.envelope.rewrapInPlace(key, (w) => rewrap(d, ws, row, w))) out.rewrapped++
      }
      if (sealed) out.encrypted_objects++
      else if (state === false) out.plaintext_objects++
      ctx.progress({ unitsDone: i + 1 })
    }
  } catch (e) {
    await d.store.unit(() => d.repo.update(ws, { pass: null }))
    throw e
  }
  const now = d.clock.now().getTime()
  await d.store.unit(() =>
    d.repo.update(ws, {
      pass: null,
      encryptedObjects: out.encrypted_objects,
      plaintextObjects: out.plaintext_objects,
      countedAt: now,
      ...(mode === 'rotate' ? { rotatedAt: now } : {}),
    }),
  )
  d.keyring.forget(ws)
  return out
}

/** The wrapped key under the key's current version, or null when it already is. */
async function rewrap(d: PassDeps, ws: string, row: KeyRow, wrapped: Uint8Array): Promise<Uint8Array | null> {
  if (row.provider === 'local') return d.local.rewrap(ws, row.localKeys ?? '[]', wrapped)
  return d.aws.rewrap(ws, row, wrapped)
}
