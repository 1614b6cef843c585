import { afterAll, describe, expect, test } from 'bun:test'
import type { TestApp } from '../helpers/app'
import { type KmsStandin, startKmsStandin } from '../helpers/kms-standin'
import {
  addMember,
  auditRows,
  authApp,
  bearer,
  expectError,
  issues,
  mintKey,
  rows,
  signUp,
} from './accounts.fixture'

// Issue 36, the customer-managed key's settings: GET/PUT /v1/enterprise/kms-key and its rotation,
// for admins only, one workspace's key invisible to another, no key or credential ever answered or
// logged, and a refused save writing nothing.

const PATH = '/v1/enterprise/kms-key'
const ACCESS_KEY = 'AKIASTANDIN000000000'
const SECRET_KEY = 'standin-secret-access-key-do-not-leak'
const apps: TestApp[] = []
const kms: KmsStandin[] = []
afterAll(() => {
  for (const t of apps) t.close()
  for (const k of kms) k.stop()
})

/** An app whose KMS credentials and endpoint rules let it reach a stand-in on loopback. */
function app(env: Record<string, string> = {}) {
  const t = authApp({
    env: {
      ENGRAM_KMS_ALLOW_HTTP: 'true',
      ENGRAM_KMS_ALLOW_LOOPBACK: 'true',
      ENGRAM_KMS_AWS_ACCESS_KEY_ID: ACCESS_KEY,
      ENGRAM_KMS_AWS_SECRET_ACCESS_KEY: SECRET_KEY,
      ...env,
    },
  })
  apps.push(t)
  return t
}

function standin() {
  const k = startKmsStandin(ACCESS_KEY)
  kms.push(k)
  return k
}

const put = (t: TestApp, token: string, json: unknown) =>
  t.request(PATH, { method: 'PUT', headers: bearer(token), json })
const get = (t: TestApp, token: string) => t.request(PATH, { headers: bearer(token) })
const rotate = (t: TestApp, token: string, json: unknown = {}) =>
  t.request(`${PATH}/rotate`, { method: 'POST', headers: bearer(token), json })

interface KeyResp {
  provider: string | null
  key_id: string | null
  endpoint: string | null
  region: string | null
  status: string
  pass: string | null
  rotated_at: string | null
  encrypted_objects: number
  plaintext_objects: number
  counted_at: string | null
  updated_at: string | null
  kms_error: string | null
}

describe('GET/PUT /v1/enterprise/kms-key', () => {
  test('a workspace without a key says so, with nothing counted', async () => {
    const t = app()
    const admin = await signUp(t)
    const res = await get(t, admin.token)
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({
      provider: null,
      key_id: null,
      endpoint: null,
      region: null,
      status: 'not_configured',
      pass: null,
      rotated_at: null,
      encrypted_objects: 0,
      plaintext_objects: 0,
      counted_at: null,
      updated_at: null,
      kms_error: null,
    })
  })

  test('a local key is made by Engram, shown by its id only, and turned off and on', async () => {
    const t = app()
    const admin = await signUp(t)
    const res = await put(t, admin.token, { provider: 'local', enabled: true })
    expect(res.status).toBe(200)
    const body = (await res.json()) as KeyResp
    expect(body).toMatchObject({ provider: 'local', status: 'enabled', pass: 'encrypt', endpoint: null })
    expect(body.key_id).toStartWith('lkey_')
    await t.jobs.scheduler.drain()
    const after = (await (await get(t, admin.token)).json()) as KeyResp
    expect(after).toMatchObject({
      key_id: body.key_id,
      pass: null,
      encrypted_objects: 0,
      plaintext_objects: 0,
    })
    expect(after.counted_at).not.toBeNull()
    const off = (await (await put(t, admin.token, { provider: 'local', enabled: false })).json()) as KeyResp
    expect(off).toMatchObject({ status: 'disabled', key_id: body.key_id })
    const on = (await (await put(t, admin.token, { provider: 'local', enabled: true })).json()) as KeyResp
    expect(on).toMatchObject({ status: 'enabled', key_id: body.key_id })
    // The stored row holds the key sealed: never in an answer.
    const stored = (await t.sql.get<{ local_keys: string }>('SELECT local_keys FROM workspace_keys'))!
    expect(JSON.stringify([body, after, off, on])).not.toContain(JSON.parse(stored.local_keys)[0].sealed)
  })

  test('an aws-kms key is tried against the KMS through the SDK, then saved', async () => {
    const t = app()
    const k = standin()
    const keyId = k.createKey()
    const admin = await signUp(t)
    const res = await put(t, admin.token, {
      provider: 'aws-kms',
      key_id: keyId,
      endpoint: k.url,
      region: 'eu-west-1',
      enabled: true,
    })
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({
      provider: 'aws-kms',
      key_id: keyId,
      endpoint: k.url,
      region: 'eu-west-1',
      status: 'enabled',
    })
    expect(k.calls).toEqual(['GenerateDataKey', 'Decrypt'])
    // Signed with the configured access key, the secret never sent.
    expect(k.authorizations.every((a) => a.includes(`Credential=${ACCESS_KEY}/`))).toBe(true)
    expect(k.authorizations.join('\n')).not.toContain(SECRET_KEY)
    expect(JSON.stringify(t.log.lines)).not.toContain(SECRET_KEY)
    expect(JSON.stringify(await (await get(t, admin.token)).json())).not.toContain(SECRET_KEY)
  })

  test('a key the KMS refuses (unknown, disabled, or a KMS down) is 422 kms_key_rejected and nothing is saved', async () => {
    const t = app()
    const k = standin()
    const disabled = k.createKey()
    k.disable(disabled)
    const admin = await signUp(t)
    const cases: [string, () => void, string][] = [
      ['no-such-key', () => {}, 'NotFoundException'],
      [disabled, () => {}, 'DisabledException'],
      [k.createKey(), () => (k.down = true), 'ServiceUnavailableException'],
    ]
    for (const [keyId, arrange, reason] of cases) {
      arrange()
      const res = await put(t, admin.token, {
        provider: 'aws-kms',
        key_id: keyId,
        endpoint: k.url,
        enabled: true,
      })
      await expectError(
        res,
        PATH,
        422,
        'kms_key_rejected',
        `The KMS could not make and open a data key with this key (it answered ${reason}).`,
      )
    }
    expect(await rows(t, 'workspace_keys')).toBe(0)
    expect(await auditRows(t, 'kms_key.updated')).toHaveLength(0)
  })

  test('bad settings are refused with the field named, and nothing is saved', async () => {
    const t = app({ ENGRAM_KMS_ALLOW_HTTP: 'false', ENGRAM_KMS_ALLOW_LOOPBACK: 'false' })
    const admin = await signUp(t)
    const cases: [unknown, string, string][] = [
      [{ provider: 'aws-kms', enabled: true }, 'key_id', 'An aws-kms key needs its key id, ARN or alias'],
      [
        { provider: 'local', endpoint: 'https://kms.example.com', enabled: true },
        'endpoint',
        'A local key has no endpoint',
      ],
      [{ provider: 'local', region: 'us-east-1', enabled: true }, 'region', 'A local key has no region'],
      [
        { provider: 'aws-kms', key_id: 'k', endpoint: 'http://kms.example.com', enabled: true },
        'endpoint',
        'Must be an https URL (plain http is allowed only when the operator sets kms.allow_http)',
      ],
      [
        { provider: 'aws-kms', key_id: 'k', endpoint: 'https://user:pw@kms.example.com', enabled: true },
        'endpoint',
        'Must not hold a user name or password',
      ],
      [
        { provider: 'aws-kms', key_id: 'k', endpoint: 'not a url', enabled: true },
        'endpoint',
        'Must be an absolute URL such as https://kms.example.com',
      ],
    ]
    for (const [json, field, msg] of cases) {
      const res = await put(t, admin.token, json)
      expect(await issues(res, PATH)).toEqual([{ loc: ['body', field], msg, type: 'value_error' }])
    }
    for (const endpoint of [
      'https://169.254.169.254',
      'https://127.0.0.1:9',
      'https://[fe80::1]',
      'https://10.0.0.5',
    ]) {
      const res = await put(t, admin.token, { provider: 'aws-kms', key_id: 'k', endpoint, enabled: true })
      const [issue] = await issues(res, PATH)
      expect(issue?.loc).toEqual(['body', 'endpoint'])
      expect(issue?.msg).toContain('are not allowed')
    }
    const schema = await put(t, admin.token, { provider: 'vault', enabled: true })
    expect(schema.status).toBe(422)
    expect(await rows(t, 'workspace_keys')).toBe(0)
  })

  test('the provider and key cannot change by PUT: moving keys is a rotation (409 conflict)', async () => {
    const t = app()
    const k = standin()
    const [a, b] = [k.createKey(), k.createKey()]
    const admin = await signUp(t)
    expect(
      (await put(t, admin.token, { provider: 'aws-kms', key_id: a, endpoint: k.url, enabled: true })).status,
    ).toBe(200)
    const other = await put(t, admin.token, {
      provider: 'aws-kms',
      key_id: b,
      endpoint: k.url,
      enabled: true,
    })
    await expectError(other, PATH, 409, 'conflict')
    const local = await put(t, admin.token, { provider: 'local', enabled: true })
    await expectError(
      local,
      PATH,
      409,
      'conflict',
      "The workspace's key is a aws-kms key; its provider cannot change once objects may be sealed under it.",
    )
    expect(((await (await get(t, admin.token)).json()) as KeyResp).key_id).toBe(a)
  })

  test('saves and rotations are audited through their events, without any key material', async () => {
    const t = app()
    const admin = await signUp(t)
    await put(t, admin.token, { provider: 'local', enabled: true })
    await put(t, admin.token, { provider: 'local', enabled: false })
    await put(t, admin.token, { provider: 'local', enabled: true })
    expect((await rotate(t, admin.token)).status).toBe(202)
    const saved = await auditRows(t, 'kms_key.updated')
    expect(saved.map((r) => JSON.parse(r.details).enabled)).toEqual([true, false, true])
    expect(saved.every((r) => r.actor_id === admin.userId && r.workspace_id === admin.workspaceId)).toBe(true)
    expect(await auditRows(t, 'kms_key.rotated')).toHaveLength(1)
    const sealed = (await t.sql.get<{ local_keys: string }>('SELECT local_keys FROM workspace_keys'))!
    for (const v of JSON.parse(sealed.local_keys) as { sealed: string }[]) {
      expect(JSON.stringify(saved)).not.toContain(v.sealed)
      expect(JSON.stringify(t.log.lines)).not.toContain(v.sealed)
    }
  })

  test('admin only: a member session and a key without the admin scope are refused', async () => {
    const t = app()
    const admin = await signUp(t)
    const member = await addMember(t, admin.token, 'member')
    const query = await mintKey(t, admin.token, ['query', 'ingest'])
    for (const token of [member.token, query.key]) {
      expect((await get(t, token)).status).toBe(403)
      expect((await put(t, token, { provider: 'local', enabled: true })).status).toBe(403)
      expect((await rotate(t, token)).status).toBe(403)
    }
    const adminKey = await mintKey(t, admin.token, ['admin'])
    expect((await put(t, adminKey.key, { provider: 'local', enabled: true })).status).toBe(200)
    expect((await t.request(PATH)).status).toBe(401)
    expect(await rows(t, 'workspace_keys')).toBe(1)
  })

  test("one workspace's key is not another's: each sees and changes only its own", async () => {
    const t = app()
    const a = await signUp(t)
    const b = await signUp(t)
    await put(t, a.token, { provider: 'local', enabled: false })
    expect(((await (await get(t, b.token)).json()) as KeyResp).status).toBe('not_configured')
    await put(t, b.token, { provider: 'local', enabled: true })
    expect(((await (await get(t, a.token)).json()) as KeyResp).status).toBe('disabled')
    expect(((await (await get(t, b.token)).json()) as KeyResp).status).toBe('enabled')
  })
})

describe('POST /v1/enterprise/kms-key/rotate', () => {
  test('refused without a key, while the key is off, and while a rotation runs', async () => {
    const t = app()
    const admin = await signUp(t)
    await expectError(await rotate(t, admin.token), `${PATH}/rotate`, 409, 'conflict')
    await put(t, admin.token, { provider: 'local', enabled: false })
    await expectError(await rotate(t, admin.token), `${PATH}/rotate`, 409, 'encryption_key_unavailable')
    await put(t, admin.token, { provider: 'local', enabled: true })
    await t.jobs.scheduler.drain()
    const first = await rotate(t, admin.token)
    expect(first.status).toBe(202)
    expect(await first.json()).toMatchObject({ pass: 'rotate' })
    await expectError(
      await rotate(t, admin.token),
      `${PATH}/rotate`,
      409,
      'conflict',
      'A rotation of this key is already running.',
    )
    await t.jobs.scheduler.drain()
    const done = (await (await get(t, admin.token)).json()) as KeyResp
    expect(done.pass).toBeNull()
    expect(done.rotated_at).toBe(t.clock.now().toISOString())
    expect((await rotate(t, admin.token, { key_id: 'x' })).status).toBe(422)
  })

  test('rotating to a key the KMS refuses is 422 kms_key_rejected and keeps the key as it was', async () => {
    const t = app()
    const k = standin()
    const keyId = k.createKey()
    const admin = await signUp(t)
    await put(t, admin.token, { provider: 'aws-kms', key_id: keyId, endpoint: k.url, enabled: true })
    await t.jobs.scheduler.drain()
    const before = (await (await get(t, admin.token)).json()) as KeyResp
    await expectError(
      await rotate(t, admin.token, { key_id: 'no-such-key' }),
      `${PATH}/rotate`,
      422,
      'kms_key_rejected',
      'The KMS could not make and open a data key with this key (it answered NotFoundException).',
    )
    expect(await (await get(t, admin.token)).json()).toEqual(before)
    expect(await auditRows(t, 'kms_key.rotated')).toHaveLength(0)
  })

  test('a KMS that does not answer within kms.timeout_ms is 422 kms_key_rejected (TimeoutError), nothing saved', async () => {
    const t = app({ ENGRAM_KMS_TIMEOUT_MS: '200' })
    let release!: () => void
    const held = new Promise<void>((r) => {
      release = r
    })
    const silent = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: async () => {
        await held
        return new Response('{}')
      },
    })
    try {
      const admin = await signUp(t)
      const res = await put(t, admin.token, {
        provider: 'aws-kms',
        key_id: 'k',
        endpoint: `http://127.0.0.1:${silent.port}`,
        enabled: true,
      })
      await expectError(
        res,
        PATH,
        422,
        'kms_key_rejected',
        'The KMS could not make and open a data key with this key (it answered TimeoutError).',
      )
      expect(await rows(t, 'workspace_keys')).toBe(0)
    } finally {
      release()
      silent.stop(true)
    }
  })
})
