import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { s3Setup } from '../../../src/features/sources/s3-setup'
import { storageRoutes } from '../../../src/features/sources/sources.storage.routes'
import {
  UPLOAD_ACTIONS,
  UPLOAD_CREDENTIALS_SECONDS,
  UploadCredentialsService,
} from '../../../src/features/sources/upload-credentials'
import type { Config } from '../../../src/platform/config/config.load'
import { ApiError } from '../../../src/platform/errors/errors'
import { addMember, bearer, expectError, mintKey, signUp } from '../../api/accounts.fixture'
import { createBase } from '../../api/ingest.fixture'
import { type TestApp, testApp } from '../../helpers/app'
import { startStsStandin } from '../../helpers/standins/sts-standin'

const ACCESS = 'ENGRAMSTORAGEKEY'
const SECRET = 'engram-storage-secret-0123456789abcdef'
const BUCKET = 'engram-objects'
const NOW = new Date('2026-03-01T12:00:00Z')

let sts: ReturnType<typeof startStsStandin>

beforeAll(() => {
  sts = startStsStandin({ accessKey: ACCESS, secretKey: SECRET, now: () => NOW })
})

afterAll(async () => {
  await sts.stop()
})

function storage(over: Partial<Config['storage']> = {}): Config['storage'] {
  return {
    driver: 's3',
    s3_endpoint: sts.url,
    s3_bucket: BUCKET,
    s3_access_key: ACCESS,
    s3_secret_key: SECRET,
    s3_region: 'us-east-1',
    s3_sts_endpoint: null,
    s3_role_arn: null,
    ...over,
  }
}

/** The error an awaited promise rejects with. */
async function rejection(p: Promise<unknown>): Promise<ApiError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  )
  expect(e).toBeInstanceOf(ApiError)
  return e as ApiError
}

describe('upload credentials from STS AssumeRole', () => {
  test('come back valid for one hour, for the base upload prefix', async () => {
    const c = await new UploadCredentialsService(storage()).issue('ws_abc', 'cor_1')
    expect(c.expiresAt.toISOString()).toBe(new Date(NOW.getTime() + 3600_000).toISOString())
    expect(c.accessKeyId).toStartWith('ASIASTANDIN')
    expect(c.secretAccessKey).toStartWith('standin-secret-')
    expect(c.sessionToken).toStartWith('standin-session-token-')
    expect(c).toMatchObject({
      endpoint: sts.url,
      bucket: BUCKET,
      region: 'us-east-1',
      prefix: 'ws_abc/corpora/cor_1/uploads/',
      allowedActions: UPLOAD_ACTIONS,
    })
    const call = sts.calls.at(-1)!
    expect(call.params.Action).toBe('AssumeRole')
    expect(call.params.Version).toBe('2011-06-15')
    expect(call.params.DurationSeconds).toBe(String(UPLOAD_CREDENTIALS_SECONDS))
    expect(call.params.RoleSessionName).toBe('engram-cor_1')
  })

  test('the session policy STS receives allows writes under the base prefix only', async () => {
    await new UploadCredentialsService(storage()).issue('ws_abc', 'cor_7')
    expect(sts.calls.at(-1)!.policy).toEqual({
      Version: '2012-10-17',
      Statement: [
        {
          Sid: 'EngramUploadsToOneBase',
          Effect: 'Allow',
          Action: ['s3:PutObject', 's3:AbortMultipartUpload', 's3:ListMultipartUploadParts'],
          Resource: `arn:aws:s3:::${BUCKET}/ws_abc/corpora/cor_7/uploads/*`,
        },
      ],
    })
  })

  test('a separate STS endpoint and a role ARN are used when given (AWS)', async () => {
    const service = new UploadCredentialsService(storage({ s3_endpoint: 'http://127.0.0.1:9' }), {
      stsEndpoint: sts.url,
      roleArn: 'arn:aws:iam::123456789012:role/engram-uploads',
    })
    const c = await service.issue('ws_abc', 'cor_2')
    expect(c.endpoint).toBe('http://127.0.0.1:9')
    expect(sts.calls.at(-1)!.params.RoleArn).toBe('arn:aws:iam::123456789012:role/engram-uploads')
  })

  test('a wrong secret key is refused by STS and answered as a 503 naming the STS code', async () => {
    const before = sts.calls.length
    const e = await rejection(
      new UploadCredentialsService(storage({ s3_secret_key: 'wrong' })).issue('ws_a', 'cor_1'),
    )
    expect(e.status).toBe(503)
    expect(e.code).toBe('service_unavailable')
    expect(e.message).toBe(
      'The object store refused to issue upload credentials (SignatureDoesNotMatch). The operator should check the storage credentials and the S3 setup (GET /v1/sources/s3/setup).',
    )
    expect(e.message).not.toContain('wrong')
    expect(sts.calls.length).toBe(before)
  })

  test('an unknown access key is refused with its own STS code', async () => {
    const e = await rejection(
      new UploadCredentialsService(storage({ s3_access_key: 'NOBODY' })).issue('ws_a', 'cor_1'),
    )
    expect(e.code).toBe('service_unavailable')
    expect(e.message).toContain('(InvalidClientTokenId)')
  })

  test('an unreachable STS endpoint is a 503 saying so', async () => {
    const closed = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('') })
    const url = `http://127.0.0.1:${closed.port}`
    await closed.stop(true)
    const e = await rejection(
      new UploadCredentialsService(storage({ s3_endpoint: url })).issue('ws_a', 'cor_1'),
    )
    expect(e.status).toBe(503)
    expect(e.message).toBe('The object store could not be reached to issue upload credentials.')
  })

  test('a stalled STS endpoint is given up on at the deadline, as unreachable', async () => {
    const release: (() => void)[] = []
    const stalled = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: () => new Promise<Response>((resolve) => release.push(() => resolve(new Response('late')))),
    })
    const service = new UploadCredentialsService(
      storage({ s3_endpoint: `http://127.0.0.1:${stalled.port}` }),
      {
        timeoutMs: 50,
      },
    )
    const e = await rejection(service.issue('ws_a', 'cor_1'))
    expect(e.message).toBe('The object store could not be reached to issue upload credentials.')
    for (const r of release) r()
    await stalled.stop(true)
  })

  test('local storage refuses with upload_credentials_unavailable', async () => {
    const e = await rejection(
      new UploadCredentialsService(storage({ driver: 'local' })).issue('ws_a', 'cor_1'),
    )
    expect(e.status).toBe(409)
    expect(e.code).toBe('upload_credentials_unavailable')
  })

  test('the endpoint answered never carries credentials embedded in the configured URL', async () => {
    const withUser = sts.url.replace('http://', 'http://user:pa55word@')
    const service = new UploadCredentialsService(storage({ s3_endpoint: withUser }), { stsEndpoint: sts.url })
    expect((await service.issue('ws_a', 'cor_1')).endpoint).toBe(sts.url)
    expect(JSON.stringify(s3Setup(storage({ s3_endpoint: withUser })))).not.toContain('pa55word')
  })
})

describe('the setup guide', () => {
  test('with local storage it says how to switch and shows placeholders', () => {
    const guide = s3Setup(storage({ driver: 'local', s3_endpoint: null, s3_bucket: null }))
    expect(guide.storage).toBe('local')
    expect(guide.bucket).toBeNull()
    expect(guide.endpoint).toBeNull()
    expect(guide.steps[0]).toContain('ENGRAM_STORAGE=s3')
    expect(guide.engram_policy.Statement[1]!.Resource).toBe('arn:aws:s3:::ENGRAM_BUCKET/*')
  })

  test('the session policy example is the one sent to STS, for placeholder ids', () => {
    const guide = s3Setup(storage())
    expect(guide.assume_role.session_policy_example.Statement[0]!.Resource).toBe(
      `arn:aws:s3:::${BUCKET}/WORKSPACE_ID/corpora/CORPUS_ID/uploads/*`,
    )
  })

  test('tenants reading their own bucket get list and read on one prefix only', () => {
    const statements = s3Setup(storage()).source_read_policy.Statement
    expect(statements.flatMap((s) => s.Action)).toEqual([
      's3:ListBucket',
      's3:GetBucketLocation',
      's3:GetObject',
    ])
    expect(statements[0]!.Condition).toEqual({
      StringLike: { 's3:prefix': ['SOURCE_PREFIX/', 'SOURCE_PREFIX/*'] },
    })
    expect(statements[2]!.Resource).toBe('arn:aws:s3:::SOURCE_BUCKET/SOURCE_PREFIX/*')
  })
})

/**
 * An app on S3 storage (the STS stand-in as endpoint) with the storage routes mounted, wired to
 * the app's own configuration and corpora table once it exists.
 */
function storageApp(env: Record<string, string> = {}): TestApp {
  let app: TestApp | null = null
  const storage = () => app!.deps.config.storage
  const extraRoutes = storageRoutes({
    uploadCredentials: { issue: (ws, id) => new UploadCredentialsService(storage()).issue(ws, id) },
    setup: () => s3Setup(storage()),
    corporaExists: async (ws, id) =>
      app!.db.$client.query('SELECT 1 FROM corpora WHERE workspace_id = ? AND id = ?').get(ws, id) !== null,
  })
  app = testApp({
    env: {
      ENGRAM_STORAGE: 's3',
      ENGRAM_S3_ENDPOINT: sts.url,
      ENGRAM_S3_BUCKET: BUCKET,
      ENGRAM_S3_ACCESS_KEY: ACCESS,
      ENGRAM_S3_SECRET_KEY: SECRET,
      ...env,
    },
    extraRoutes,
  })
  return app
}

describe('POST /v1/corpora/{id}/upload-credentials and GET /v1/sources/s3/setup', () => {
  test('a key with the ingest scope gets credentials for its own base', async () => {
    const t = storageApp()
    const admin = await signUp(t)
    const base = await createBase(t, admin.token)
    const key = await mintKey(t, admin.token, ['ingest'])
    const res = await t.request(`/v1/corpora/${base}/upload-credentials`, {
      method: 'POST',
      headers: bearer(key.key),
    })
    expect(res.status).toBe(200)
    const body = (await res.json()) as Record<string, unknown>
    expect(Object.keys(body).sort()).toEqual(
      [
        'access_key_id',
        'allowed_actions',
        'bucket',
        'endpoint',
        'expires_at',
        'prefix',
        'region',
        'secret_access_key',
        'session_token',
      ].sort(),
    )
    expect(body.expires_at).toBe('2026-03-01T13:00:00.000Z')
    expect(body.prefix).toBe(`${admin.workspaceId}/corpora/${base}/uploads/`)
    expect(body.allowed_actions).toEqual(UPLOAD_ACTIONS)
    expect(res.headers.get('cache-control')).toBe('no-store')
    t.close()
  })

  test('another workspace base is a 404 and reaches no STS', async () => {
    const t = storageApp()
    const owner = await signUp(t)
    const base = await createBase(t, owner.token)
    const stranger = await signUp(t)
    const before = sts.calls.length
    const path = `/v1/corpora/${base}/upload-credentials`
    const res = await t.request(path, { method: 'POST', headers: bearer(stranger.token) })
    await expectError(res, path, 404, 'not_found', 'Document base not found.')
    expect(sts.calls.length).toBe(before)
    t.close()
  })

  test('a key without the ingest scope is a 403, and no credential a 401', async () => {
    const t = storageApp()
    const admin = await signUp(t)
    const base = await createBase(t, admin.token)
    const query = await mintKey(t, admin.token, ['query'])
    const path = `/v1/corpora/${base}/upload-credentials`
    await expectError(
      await t.request(path, { method: 'POST', headers: bearer(query.key) }),
      path,
      403,
      'missing_scope',
    )
    await expectError(await t.request(path, { method: 'POST' }), path, 401, 'unauthorized')
    t.close()
  })

  test('local storage answers 409 upload_credentials_unavailable', async () => {
    const t = storageApp({ ENGRAM_STORAGE: 'local' })
    const admin = await signUp(t)
    const base = await createBase(t, admin.token)
    const path = `/v1/corpora/${base}/upload-credentials`
    const res = await t.request(path, { method: 'POST', headers: bearer(admin.token) })
    await expectError(
      res,
      path,
      409,
      'upload_credentials_unavailable',
      'Upload credentials need S3 object storage; this server keeps objects on local disk. Use the push protocol (POST /v1/corpora/{id}/documents/upload-urls) instead.',
    )
    t.close()
  })

  test('bad storage keys are a 503 with the STS reason', async () => {
    const t = storageApp({ ENGRAM_S3_SECRET_KEY: 'not-the-secret' })
    const admin = await signUp(t)
    const base = await createBase(t, admin.token)
    const path = `/v1/corpora/${base}/upload-credentials`
    const res = await t.request(path, { method: 'POST', headers: bearer(admin.token) })
    const message = await expectError(res, path, 503, 'service_unavailable')
    expect(message).toContain('(SignatureDoesNotMatch)')
    t.close()
  })

  test('the setup guide needs the admin scope and never contains the storage keys', async () => {
    const t = storageApp()
    const admin = await signUp(t)
    const adminKey = await mintKey(t, admin.token, ['admin'])
    const ingestKey = await mintKey(t, admin.token, ['ingest'])
    const path = '/v1/sources/s3/setup'
    await expectError(await t.request(path, { headers: bearer(ingestKey.key) }), path, 403, 'missing_scope')
    const res = await t.request(path, { headers: bearer(adminKey.key) })
    expect(res.status).toBe(200)
    const text = await res.text()
    expect(text).not.toContain(SECRET)
    expect(text).not.toContain(ACCESS)
    const guide = JSON.parse(text) as { storage: string; bucket: string; endpoint: string }
    expect(guide).toMatchObject({ storage: 's3', bucket: BUCKET, endpoint: sts.url })
    t.close()
  })

  test("the setup guide is an admin's: a member's session is refused, an admin's session reads it", async () => {
    const t = storageApp()
    const admin = await signUp(t)
    const member = await addMember(t, admin.token)
    const path = '/v1/sources/s3/setup'
    await expectError(
      await t.request(path, { headers: bearer(member.token) }),
      path,
      403,
      'admin_required',
      'Workspace admin role required.',
    )
    const res = await t.request(path, { headers: bearer(admin.token) })
    expect(res.status).toBe(200)
    expect(((await res.json()) as { bucket: string }).bucket).toBe(BUCKET)
    t.close()
  })
})
