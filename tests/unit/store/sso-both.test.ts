import { afterEach, describe, expect, test } from 'bun:test'
import { type SsoConfigRow, SsoRepo } from '../../../src/features/sso/sso.repo'
import { isUniqueViolation } from '../../../src/platform/db/failures'
import type { Store } from '../../../src/platform/db/store'
import { engines, type OpenStore, seedTenants } from '../../helpers/stores'

// sso's repository on SQLite and on a real PostgreSQL: a set-up reads back as written and a second
// save replaces it but keeps its creation time, a unit that fails writes nothing (a domain another
// workspace holds refuses the whole change), and deleting a set-up takes its domains and codes.

const opened: OpenStore[] = []
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close()
})

const T0 = 1_764_400_000_123 // ms: past what a 32-bit integer holds

function config(workspaceId: string, over: Partial<SsoConfigRow> = {}): SsoConfigRow {
  return {
    workspaceId,
    issuer: 'https://login.example.com',
    clientId: 'engram',
    clientSecret: 'sealed:abc',
    enforce: false,
    defaultRole: 'member',
    seatCap: null,
    createdAt: T0,
    updatedAt: T0,
    ...over,
  }
}

function code(id: string, workspaceId = 'ws_1') {
  return { id, workspaceId, codeHash: `h_${id}`, createdAt: T0, usedAt: null, usedBy: null }
}

for (const engine of await engines()) {
  describe.skipIf(engine.skip !== null)(`sso's repository on ${engine.name}`, () => {
    async function open(): Promise<{ store: Store; repo: SsoRepo }> {
      const o = await engine.open()
      opened.push(o)
      const store = o.store
      await seedTenants(store, { workspaces: ['ws_1', 'ws_2'], plan: 'enterprise', at: T0 })
      return { store, repo: new SsoRepo(store) }
    }

    test('a set-up reads back as written; saved again it is replaced, its creation time kept', async () => {
      const { store, repo } = await open()
      await store.unit(async () => {
        await repo.saveConfig(config('ws_1'))
        await repo.replaceDomains('ws_1', ['b.example', 'a.example'], T0)
        await repo.replaceRecoveryCodes('ws_1', [code('rc_1'), code('rc_2')])
        await repo.setCutoff('ws_1', T0 + 1)
      })
      expect(await repo.config('ws_1')).toEqual(config('ws_1'))
      expect(await repo.domains('ws_1')).toEqual(['a.example', 'b.example'])
      expect(await repo.workspaceOfDomain('a.example')).toBe('ws_1')
      expect(await repo.recoveryCodesLeft('ws_1')).toBe(2)
      const changed = config('ws_1', {
        enforce: true,
        defaultRole: 'admin',
        seatCap: 25,
        createdAt: T0 + 9,
        updatedAt: T0 + 9,
      })
      await store.unit(async () => {
        await repo.saveConfig(changed)
        await repo.setCutoff('ws_1', T0 + 9)
      })
      expect(await repo.config('ws_1')).toEqual({ ...changed, createdAt: T0 })
      expect(await repo.claimedElsewhere('ws_2', ['a.example', 'c.example'])).toEqual(['a.example'])
      expect(await repo.claimedElsewhere('ws_1', ['a.example'])).toEqual([])
    })

    test('a domain another workspace holds refuses the whole change as a unique violation, and the unit writes nothing', async () => {
      const { store, repo } = await open()
      await store.unit(async () => {
        await repo.saveConfig(config('ws_1'))
        await repo.replaceDomains('ws_1', ['a.example'], T0)
      })
      const error = await store
        .unit(async () => {
          await repo.saveConfig(config('ws_2'))
          await repo.replaceDomains('ws_2', ['b.example', 'a.example'], T0)
        })
        .then(
          () => null,
          (e: unknown) => e,
        )
      // What settings turn into 409 sso_domain_taken, on either engine.
      expect(isUniqueViolation(error)).toBe(true)
      expect(isUniqueViolation(new Error('UNIQUE constraint failed, said a message'))).toBe(false)
      expect(await repo.config('ws_2')).toBeUndefined()
      expect(await repo.workspaceOfDomain('b.example')).toBeUndefined()
      expect(await repo.domains('ws_1')).toEqual(['a.example'])
    })

    test('deleting a set-up takes its domains and recovery codes, and says whether there was one', async () => {
      const { store, repo } = await open()
      await store.unit(async () => {
        await repo.saveConfig(config('ws_1'))
        await repo.saveConfig(config('ws_2'))
        await repo.replaceDomains('ws_1', ['a.example'], T0)
        await repo.replaceRecoveryCodes('ws_1', [code('rc_1')])
        await repo.replaceRecoveryCodes('ws_2', [code('rc_9', 'ws_2')])
      })
      expect(await store.unit(() => repo.deleteConfig('ws_1'))).toBe(true)
      expect(await store.unit(() => repo.deleteConfig('ws_1'))).toBe(false)
      expect(await repo.workspaceOfDomain('a.example')).toBeUndefined()
      expect(await repo.recoveryCodesLeft('ws_1')).toBe(0)
      expect(await repo.recoveryCodesLeft('ws_2')).toBe(1)
    })
  })
}
