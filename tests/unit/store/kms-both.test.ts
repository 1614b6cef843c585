import { afterEach, describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { KeysService } from '../../../src/features/keys/keys.service'
import type { AwsKeys } from '../../../src/features/kms/kms.aws'
import { KmsKeyring } from '../../../src/features/kms/kms.keyring'
import { LocalKeys } from '../../../src/features/kms/kms.local'
import { type KeyRow, KmsRepo } from '../../../src/features/kms/kms.repo'
import { KmsService, PASS_JOB } from '../../../src/features/kms/kms.service'
import { WorkspacesService } from '../../../src/features/workspaces/workspaces.service'
import type { Principal } from '../../../src/platform/auth/principal'
import { ManualClock } from '../../../src/platform/clock/clock'
import type { Config } from '../../../src/platform/config/config.load'
import { seededRandom } from '../../../src/platform/crypto/random'
import { Sealer } from '../../../src/platform/crypto/sealed'
import type { Store } from '../../../src/platform/db/store'
import type { NotifiedCommits } from '../../../src/platform/db/store.postgres'
import { domainEvents } from '../../../src/platform/events/events.tables'
import { Outbox } from '../../../src/platform/events/outbox'
import { jobs } from '../../../src/platform/jobs/jobs.tables'
import { JobQueue } from '../../../src/platform/jobs/queue'
import { engines, type OpenStore, outcomeCode, seedTenants, sessionAdmin } from '../../helpers/stores'

// Customer-managed keys on SQLite and on a real PostgreSQL: a key reads back as saved, a unit that
// fails saves none, a change conditional on the key as read writes nothing once the key changed
// (a rotation's new version is never written over), a save queues its pass and publishes its event
// in its unit, and of two rotations at once, in two processes, one rotates and the other is refused.

const opened: OpenStore[] = []
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close()
})

const T0 = 1_764_400_000_123

const admin: Principal = sessionAdmin()

function keyRow(over: Partial<KeyRow> = {}): KeyRow {
  return {
    workspaceId: 'ws_1',
    provider: 'local',
    keyId: 'lkey_1',
    endpoint: null,
    region: null,
    enabled: true,
    localKeys: '[{"version":1}]',
    rotatedAt: null,
    pass: null,
    encryptedObjects: 0,
    plaintextObjects: 0,
    countedAt: null,
    updatedBy: 'usr_1',
    createdAt: T0,
    updatedAt: T0,
    ...over,
  }
}

/** The kms service of a store, as the feature builds it (local keys only: no KMS is asked). */
function kmsOn(store: Store) {
  const clock = new ManualClock(new Date(T0))
  const random = seededRandom(7)
  const repo = new KmsRepo(store)
  const local = new LocalKeys(new Sealer('secret', 'engram/kms/local-key'))
  const aws = {} as AwsKeys
  const workspaces = new WorkspacesService(store, clock, random)
  const keyring = new KmsKeyring({ store, repo, clock, local, aws, cacheSeconds: 60, workspaces })
  const events = new Outbox(store.db, clock, random, store)
  const queue = new JobQueue(store.db, clock, random, store)
  const config = {} as Config['kms']
  return {
    repo,
    keyring,
    workspaces,
    service: new KmsService({
      store,
      clock,
      random,
      queue,
      events,
      config,
      repo,
      keyring,
      local,
      aws,
      workspaces,
    }),
  }
}

for (const engine of await engines()) {
  describe.skipIf(engine.skip !== null)(`customer-managed keys on ${engine.name}`, () => {
    async function open(): Promise<OpenStore> {
      const o = await engine.open()
      opened.push(o)
      await seedTenants(o.store, { workspaces: ['ws_1', 'ws_2'], at: T0 })
      return o
    }

    test('a key reads back as saved; a first key is inserted once; a unit that fails saves none', async () => {
      const { store } = await open()
      const repo = new KmsRepo(store)
      expect(await repo.get('ws_1')).toBeUndefined()
      await expect(
        store.unit(async () => {
          expect(await repo.insert(keyRow())).toBe(true)
          throw new Error('refused')
        }),
      ).rejects.toThrow('refused')
      expect(await repo.get('ws_1')).toBeUndefined()
      expect(await store.unit(() => repo.insert(keyRow()))).toBe(true)
      expect(await store.unit(() => repo.insert(keyRow({ keyId: 'lkey_2' })))).toBe(false)
      expect(await repo.get('ws_1')).toEqual(keyRow())
      await store.unit(() => repo.update('ws_1', { pass: 'encrypt', encryptedObjects: 3, countedAt: T0 + 1 }))
      expect(await repo.get('ws_1')).toEqual(
        keyRow({ pass: 'encrypt', encryptedObjects: 3, countedAt: T0 + 1 }),
      )
      expect(await repo.get('ws_2')).toBeUndefined()
    })

    test('a change conditional on the key as read writes nothing once the key changed', async () => {
      const { store } = await open()
      const repo = new KmsRepo(store)
      await store.unit(() => repo.insert(keyRow()))
      const read = (await repo.get('ws_1'))!
      // A rotation lands between another change's read and its write.
      const rotated = '[{"version":1},{"version":2}]'
      expect(await store.unit(() => repo.change(read, { pass: 'rotate', localKeys: rotated }, true))).toBe(
        true,
      )
      expect(await store.unit(() => repo.change(read, { enabled: false }))).toBe(false)
      expect(
        await store.unit(() => repo.change({ ...read, localKeys: rotated }, { pass: 'rotate' }, true)),
      ).toBe(false)
      expect(await repo.get('ws_1')).toEqual(keyRow({ pass: 'rotate', localKeys: rotated }))
      expect(await store.unit(() => repo.change({ ...read, localKeys: rotated }, { enabled: false }))).toBe(
        true,
      )
      expect((await repo.get('ws_1'))?.enabled).toBe(false)
    })

    test('a save queues its pass and publishes its event in its unit; the keyring reads it', async () => {
      const { store } = await open()
      const { service, keyring } = kmsOn(store)
      expect(await keyring.row('ws_1')).toBeNull()
      const made = await service.put(admin, { provider: 'local', enabled: true }, { ip: '10.0.0.1' })
      expect(made).toMatchObject({ provider: 'local', status: 'enabled', pass: 'encrypt' })
      expect(await keyring.row('ws_1')).toMatchObject({ provider: 'local', enabled: true, pass: 'encrypt' })
      const j = store.table(jobs)
      const queued = await store.db.select().from(j).where(eq(j.kind, PASS_JOB))
      expect(queued.map((r) => [r.workspaceId, JSON.parse(r.payload ?? '{}')])).toEqual([
        ['ws_1', { mode: 'encrypt' }],
      ])
      const ev = store.table(domainEvents)
      const told = await store.db.select().from(ev).where(eq(ev.type, 'kms_key.updated'))
      expect(told.map((r) => JSON.parse(r.payload).details)).toMatchObject([
        { provider: 'local', created: true },
      ])
      expect(await service.put(admin, { provider: 'local', enabled: false }, {})).toMatchObject({
        status: 'disabled',
      })
      expect(await keyring.row('ws_1')).toMatchObject({ enabled: false })
      await expect(service.get('ws_1')).resolves.toMatchObject({ status: 'disabled' })
    })

    test('of two rotations at once in two processes, one rotates and the other is refused', async () => {
      const o = await open()
      const other = await o.another()
      const one = kmsOn(o.store)
      const two = kmsOn(other.store)
      await one.service.put(admin, { provider: 'local', enabled: true }, {})
      await o.store.unit(() => one.repo.update('ws_1', { pass: null }))
      const rotations = [one, two].map((k) => () => k.service.rotate(admin, {}, {}))
      const settled =
        engine.name === 'postgres'
          ? await Promise.allSettled(rotations.map((r) => r()))
          : // Two SQLite connections of one process take turns (a second writer would wait on a lock
            // only this thread could release).
            [await Promise.allSettled([rotations[0]!()]), await Promise.allSettled([rotations[1]!()])].flat()
      expect(settled.filter((s) => s.status === 'fulfilled')).toHaveLength(1)
      expect(settled.find((s) => s.status === 'rejected')).toMatchObject({ reason: { code: 'conflict' } })
      const key = (await one.repo.get('ws_1'))!
      expect(key.pass).toBe('rotate')
      expect((JSON.parse(key.localKeys!) as unknown[]).length).toBe(2)
      const j = o.store.table(jobs)
      const passes = await o.store.db.select().from(j).where(eq(j.kind, PASS_JOB))
      expect(passes.map((r) => JSON.parse(r.payload ?? '{}').mode).sort()).toEqual(['encrypt', 'rotate'])
    })

    test("a key turned off through one process is refused by another's keyring on its next request", async () => {
      const o = await open()
      const other = await o.another()
      const a = kmsOn(o.store)
      const b = kmsOn(other.store)
      // B authenticates its requests with an API key: the auth read tells B's workspaces the revision.
      const clock = new ManualClock(new Date(T0))
      const plans = { ensureRoom: async () => {}, holdCap: async () => {} }
      const corpora = { exists: async () => true }
      const events = new Outbox(other.store.db, clock, seededRandom(3), other.store)
      const keys = new KeysService(other.store, clock, seededRandom(3), events, corpora, plans, b.workspaces)
      const secret = (
        await keys.create(admin, { name: 'ci', scopes: ['query'] }, { ip: '1', requestId: 'r' })
      ).key
      const request = async () => {
        await keys.authenticate(secret)
        return outcomeCode(b.keyring.assertReadable('ws_1'))
      }
      await a.service.put(admin, { provider: 'local', enabled: true }, {})
      expect(await request()).toBe('ok')
      expect(await request()).toBe('ok')
      // On PostgreSQL B hears no more of A's commits: its memos are emptied by nothing but revisions.
      if (engine.name === 'postgres') {
        Object.defineProperty(other.store.commits as NotifiedCommits, 'version', { value: () => 1 })
        expect(await request()).toBe('ok')
      }
      await a.service.put(admin, { provider: 'local', enabled: false }, {})
      expect(await request()).toBe('encryption_key_unavailable')
      await a.service.put(admin, { provider: 'local', enabled: true }, {})
      expect(await request()).toBe('ok')
    })
  })
}
