import type { Static } from '@sinclair/typebox'
import { actorOf, type Principal } from '../../platform/auth/principal'
import { type Clock, iso } from '../../platform/clock/clock'
import type { Config } from '../../platform/config/config.load'
import { newId, type Random } from '../../platform/crypto/random'
import type { Store } from '../../platform/db/store'
import { fail, validationFailed } from '../../platform/errors/errors'
import type { Outbox } from '../../platform/events/outbox'
import type { JobQueue } from '../../platform/jobs/queue'
import type { WorkspacesService } from '../workspaces/workspaces.service'
import { type AwsKeys, KmsRefused } from './kms.aws'
import { endpointProblem } from './kms.endpoint'
import type { KmsKeyring } from './kms.keyring'
import type { LocalKeys } from './kms.local'
import type { KeyRow, KmsRepo } from './kms.repo'
import type { KmsKeyReq, KmsKeyResp, KmsRotateReq } from './kms.schemas'

type Resp = Static<typeof KmsKeyResp>

/** The job kind of a pass over a workspace's objects (kms.pass.ts). */
export const PASS_JOB = 'kms.pass'

export interface KmsDeps {
  /** Key changes are units on it; provider calls (the KMS, sealing local keys) come before them. */
  store: Store
  clock: Clock
  random: Random
  queue: JobQueue
  /** Key changes are told as `kms_key.updated` / `kms_key.rotated` (the audit log subscribes). */
  events: Outbox
  config: Config['kms']
  repo: KmsRepo
  keyring: KmsKeyring
  local: LocalKeys
  aws: AwsKeys
  /** Every change of a key moves its workspace's security revision on, in the change's unit. */
  workspaces: Pick<WorkspacesService, 'bumpSecurityRev'>
}

/** Who asks, from where (for the audit row). */
export interface KmsCaller {
  ip?: string
  requestId?: string
}

const bad = (field: string, msg: string) =>
  validationFailed([{ loc: ['body', field], msg, type: 'value_error' }])

/**
 * The workspace's customer-managed key (`/v1/enterprise/kms-key`): its settings, turning it off and
 * on, and rotation. The keys themselves are the keyring's; passes over objects are kms.pass.ts's.
 */
export class KmsService {
  constructor(private readonly d: KmsDeps) {}

  /** `GET /v1/enterprise/kms-key`. */
  async get(workspaceId: string): Promise<Resp> {
    return resp(await this.d.repo.get(workspaceId), this.d.keyring.kmsError(workspaceId))
  }

  /**
   * `PUT /v1/enterprise/kms-key`: sets the key (its first save starts a pass sealing the objects
   * stored before), changes how the KMS is reached, or turns the key off and on. An enabled
   * `aws-kms` key is tried first (a data key made and opened): a refused save writes nothing. The
   * save is conditional on the key as read before the KMS was asked: a key changed meanwhile (a
   * rotation's new version, another save) is a 409 `conflict`, never written over.
   */
  async put(p: Principal, body: Static<typeof KmsKeyReq>, caller: KmsCaller): Promise<Resp> {
    const ws = p.workspaceId
    const before = await this.d.repo.get(ws)
    const now = this.d.clock.now().getTime()
    if (before && before.provider !== body.provider) {
      throw fail(
        'conflict',
        `The workspace's key is a ${before.provider} key; its provider cannot change once objects may be sealed under it.`,
      )
    }
    let row: KeyRow
    if (body.provider === 'local') {
      if (body.endpoint !== undefined) throw bad('endpoint', 'A local key has no endpoint')
      if (body.region !== undefined) throw bad('region', 'A local key has no region')
      row = before
        ? { ...before, enabled: body.enabled }
        : {
            ...blank(ws, now),
            provider: 'local',
            keyId: newId(this.d.random, 'lkey'),
            localKeys: this.d.local.create(ws),
            enabled: body.enabled,
          }
    } else {
      if (!body.key_id) throw bad('key_id', 'An aws-kms key needs its key id, ARN or alias')
      if (before && before.keyId !== body.key_id) {
        throw fail(
          'conflict',
          'To move to another key, rotate with its key_id (POST /v1/enterprise/kms-key/rotate): objects sealed under the current key are re-wrapped under the new one.',
        )
      }
      const problem = body.endpoint ? await endpointProblem(body.endpoint, this.d.config) : null
      if (problem) throw bad('endpoint', problem)
      const where = { keyId: body.key_id, endpoint: body.endpoint ?? null, region: body.region ?? null }
      row = { ...(before ?? blank(ws, now)), provider: 'aws-kms', ...where, enabled: body.enabled }
      if (body.enabled) await this.probe(ws, row)
    }
    const created = !before
    const reenabled = !!before && !before.enabled && body.enabled
    row = { ...row, updatedAt: now, updatedBy: p.userId ?? p.keyId ?? null }
    if (created || reenabled) row.pass = row.pass ?? 'encrypt'
    // Only what a save sets is written: a pass's state and counts stay as its job leaves them.
    const { enabled, endpoint, region, updatedAt, updatedBy, pass } = row
    const set = { enabled, endpoint, region, updatedAt, updatedBy, ...(reenabled ? { pass } : {}) }
    await this.d.store.unit(async () => {
      const saved = before ? await this.d.repo.change(before, set) : await this.d.repo.insert(row)
      if (!saved) throw changedMeanwhile()
      await this.d.workspaces.bumpSecurityRev(ws)
      if (created || reenabled) await this.addPass(ws, 'encrypt')
      await this.d.events.publish({
        type: 'kms_key.updated',
        workspaceId: ws,
        payload: {
          actor: actorOf(p, caller.ip, caller.requestId),
          target: { type: 'workspace', id: ws },
          details: {
            provider: row.provider,
            key_id: row.keyId,
            endpoint: row.endpoint,
            region: row.region,
            enabled: row.enabled,
            was_enabled: before?.enabled ?? null,
            created,
          },
        },
      })
    })
    this.d.keyring.forget(ws)
    return resp(row)
  }

  /**
   * `POST /v1/enterprise/kms-key/rotate`: a new version of a local key, or the KMS key's newest
   * material (or another key, `key_id`); a pass then re-wraps every object's data key without
   * re-encrypting its content. Answers at once with the pass running.
   */
  async rotate(p: Principal, body: Static<typeof KmsRotateReq>, caller: KmsCaller): Promise<Resp> {
    const ws = p.workspaceId
    const before = await this.d.repo.get(ws)
    if (!before)
      throw fail(
        'conflict',
        'The workspace has no key to rotate. Set one first (PUT /v1/enterprise/kms-key).',
      )
    if (!before.enabled) throw fail('encryption_key_unavailable')
    if (before.pass === 'rotate') throw fail('conflict', 'A rotation of this key is already running.')
    let row: KeyRow = { ...before, pass: 'rotate', updatedAt: this.d.clock.now().getTime() }
    if (before.provider === 'local') {
      if (body.key_id !== undefined)
        throw bad('key_id', 'A local key is rotated in place; it takes no key_id')
      row.localKeys = this.d.local.rotate(ws, before.localKeys ?? '[]')
    } else if (body.key_id && body.key_id !== before.keyId) {
      row = { ...row, keyId: body.key_id }
      await this.probe(ws, row)
    }
    const set = { pass: row.pass, updatedAt: row.updatedAt, localKeys: row.localKeys, keyId: row.keyId }
    await this.d.store.unit(async () => {
      // Conditional on the key as read and on no rotation running: of two rotations at once, one
      // writes its new version and queues its pass; the other is refused.
      if (!(await this.d.repo.change(before, set, true))) {
        throw fail(
          'conflict',
          'A rotation of this key is already running, or the key changed; read it again.',
        )
      }
      await this.d.workspaces.bumpSecurityRev(ws)
      await this.addPass(ws, 'rotate')
      await this.d.events.publish({
        type: 'kms_key.rotated',
        workspaceId: ws,
        payload: {
          actor: actorOf(p, caller.ip, caller.requestId),
          target: { type: 'workspace', id: ws },
          details: { provider: row.provider, key_id: row.keyId, previous_key_id: before.keyId },
        },
      })
    })
    this.d.keyring.forget(ws)
    return resp(row)
  }

  /** Queues a pass over the workspace's objects, in the caller's unit. */
  private async addPass(workspaceId: string, mode: 'encrypt' | 'rotate'): Promise<void> {
    await this.d.queue.add({ workspaceId, kind: PASS_JOB, payload: { mode }, detail: `kms ${mode} pass` })
  }

  /** Makes and opens a data key with the key: 422 `kms_key_rejected` naming the KMS's refusal. */
  private async probe(workspaceId: string, row: KeyRow): Promise<void> {
    try {
      await this.d.aws.probe(workspaceId, row)
    } catch (e) {
      if (!(e instanceof KmsRefused)) throw e
      throw fail(
        'kms_key_rejected',
        `The KMS could not make and open a data key with this key (it answered ${e.reason}).`,
      )
    }
  }
}

/** 409 when the key changed between the read a change was worked out from and its write. */
function changedMeanwhile() {
  return fail('conflict', 'The key settings changed while this request ran; read them again and retry.')
}

/** A new row's defaults. */
function blank(workspaceId: string, now: number): KeyRow {
  return {
    workspaceId,
    provider: 'local',
    keyId: '',
    endpoint: null,
    region: null,
    enabled: true,
    localKeys: null,
    rotatedAt: null,
    pass: null,
    encryptedObjects: 0,
    plaintextObjects: 0,
    countedAt: null,
    updatedBy: null,
    createdAt: now,
    updatedAt: now,
  }
}

const time = (ms: number | null) => (ms === null ? null : iso(new Date(ms)))

/** The wire form of the settings (never a key, sealed or not). */
export function resp(row: KeyRow | undefined, kmsError: string | null = null): Resp {
  return {
    provider: row?.provider ?? null,
    key_id: row?.keyId ?? null,
    endpoint: row?.endpoint ?? null,
    region: row?.region ?? null,
    status: !row ? 'not_configured' : row.enabled ? 'enabled' : 'disabled',
    pass: row?.pass ?? null,
    rotated_at: time(row?.rotatedAt ?? null),
    encrypted_objects: row?.encryptedObjects ?? 0,
    plaintext_objects: row?.plaintextObjects ?? 0,
    counted_at: time(row?.countedAt ?? null),
    updated_at: time(row?.updatedAt ?? null),
    kms_error: kmsError,
  }
}
