import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createServer, type Server, type Socket } from 'node:net'
import { Value } from '@sinclair/typebox/value'
import { Client } from 'minio'
import type {
  ConnectorEnv,
  SourceChange,
  SourceFile,
} from '../../../src/features/sources/connectors/connector'
import { S3Secrets, S3Settings, s3Kind, s3KindWith } from '../../../src/features/sources/connectors/s3'
import { ManualClock } from '../../../src/platform/clock/clock'
import { loadConfig } from '../../../src/platform/config/config.load'
import { memoryLogger } from '../../../src/platform/log/log'
import { EgressGuard } from '../../../src/platform/net/egress'
import { type S3Standin, startS3rver } from '../../helpers/standins/s3rver'

let s3: S3Standin
let admin: Client
const BUCKET = 'engram-source'

function env(overrides: Partial<ConnectorEnv['config']> = {}): ConnectorEnv {
  // The stand-ins listen on loopback, which the operator must allow (sources.allow_loopback).
  const guard = new EgressGuard({ denyPrivateNetworks: false, allowLoopback: true })
  return {
    config: { ...loadConfig({ env: {}, readFile: () => null }).sources, ...overrides },
    fetch: guard.fetch,
    checkHost: (h) => guard.check(h),
    clock: new ManualClock(),
    log: memoryLogger(),
  }
}

function open(
  o: { folder?: string; endpoint?: string; bucket?: string; secret?: string; pageSize?: number } = {},
) {
  const kind = o.pageSize ? s3KindWith({ pageSize: o.pageSize }) : s3Kind
  return kind.open({
    settings: { endpoint: o.endpoint ?? s3.endpoint, bucket: o.bucket ?? BUCKET },
    secrets: { access_key: s3.accessKey, secret_key: o.secret ?? s3.secretKey },
    folder: o.folder ?? '',
    env: env(),
  })
}

async function files(changes: AsyncIterable<SourceChange>): Promise<SourceFile[]> {
  const out: SourceFile[] = []
  for await (const c of changes) if (c.kind === 'file') out.push(c.file)
  return out
}

async function put(key: string, body: string): Promise<void> {
  await admin.putObject(BUCKET, key, Buffer.from(body))
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p
  } catch (e) {
    return (e as { code: string }).code
  }
  return 'none'
}

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const { port } = server.address() as { port: number }
  await new Promise((r) => server.close(r))
  return port
}

beforeAll(async () => {
  s3 = await startS3rver()
  const url = new URL(s3.endpoint)
  admin = new Client({
    endPoint: url.hostname,
    port: Number(url.port),
    useSSL: false,
    accessKey: s3.accessKey,
    secretKey: s3.secretKey,
    region: 'us-east-1',
  })
  await admin.makeBucket(BUCKET, 'us-east-1')
  for (let i = 0; i < 7; i++) await put(`docs/page-${i}.txt`, `page ${i}`)
  await put('docs/deep/er/nested.md', '# nested')
  await put('docs/deep/', '')
  await put('docs-sibling/not-mine.txt', 'outside the prefix')
  await put('top.txt', 'top')
})

afterAll(async () => {
  await s3.stop()
})

describe('s3 folder (key prefix)', () => {
  test('normalizes a prefix to end with "/" and accepts the whole bucket', async () => {
    expect(await s3Kind.folder('', env())).toBe('')
    expect(await s3Kind.folder('docs', env())).toBe('docs/')
    expect(await s3Kind.folder('docs/2024/', env())).toBe('docs/2024/')
  })

  test('refuses a leading slash, empty, "." and ".." segments and control characters', async () => {
    for (const raw of ['/docs', 'docs/../x', '..', 'a//b', './a', 'a/./b', 'a\u0000b', 'a\nb']) {
      expect(await codeOf(s3Kind.folder(raw, env()))).toBe('invalid_folder')
    }
  })
})

describe('s3 connection fields', () => {
  test('accept an endpoint, a bucket and the optional region and addressing style', () => {
    const ok = { endpoint: 'https://s3.eu-west-1.amazonaws.com', bucket: 'my.bucket-1', region: 'eu-west-1' }
    expect(Value.Check(S3Settings, ok)).toBe(true)
    expect(
      Value.Check(S3Settings, { endpoint: 'http://[::1]:9000/', bucket: 'abc', path_style: false }),
    ).toBe(true)
  })

  test('refuse bucket names S3 does not allow and endpoints with a path or credentials', () => {
    const endpoint = 'http://127.0.0.1:9000'
    for (const bucket of ['ab', 'Upper', '-lead', 'trail-', 'under_score', 'a'.repeat(64)]) {
      expect(Value.Check(S3Settings, { endpoint, bucket })).toBe(false)
    }
    for (const bad of ['ftp://host', 'http://host/path', 'http://user:pw@host', 'host:9000']) {
      expect(Value.Check(S3Settings, { endpoint: bad, bucket: 'abc' })).toBe(false)
    }
    expect(Value.Check(S3Secrets, { access_key: 'a', secret_key: 'has space' })).toBe(false)
    expect(Value.Check(S3Secrets, { access_key: 'a' })).toBe(false)
  })
})

describe('s3 listing', () => {
  test('lists every object under the prefix across several pages, without directory markers', async () => {
    const listing = await open({ folder: 'docs/', pageSize: 2 }).list(null)
    const listed = await files(listing.changes)
    expect(listing.complete).toBe(true)
    expect(listing.nextCursor()).toBeNull()
    expect(listed.map((f) => f.path).sort()).toEqual([
      'deep/er/nested.md',
      ...Array.from({ length: 7 }, (_, i) => `page-${i}.txt`),
    ])
    const nested = listed.find((f) => f.path === 'deep/er/nested.md')!
    expect(nested.id).toBe('docs/deep/er/nested.md')
    expect(nested.size).toBe(8)
    expect(nested.modifiedAt).toBeNumber()
  })

  test('lists the whole bucket when the prefix is empty, paths being whole keys', async () => {
    const listed = await files((await open({ pageSize: 3 }).list(null)).changes)
    expect(listed.map((f) => f.path)).toContain('top.txt')
    expect(listed.map((f) => f.path)).toContain('docs-sibling/not-mine.txt')
    expect(listed.map((f) => f.path)).not.toContain('docs/deep/')
    expect(listed).toHaveLength(10)
  })

  test('a prefix does not take in keys that merely start with the same letters', async () => {
    const listed = await files((await open({ folder: 'docs/' }).list(null)).changes)
    expect(listed.some((f) => f.id.startsWith('docs-sibling/'))).toBe(false)
  })

  test("an object's version changes when it is overwritten with other content", async () => {
    await put('versions/a.txt', 'one')
    const connector = open({ folder: 'versions/' })
    const [before] = await files((await connector.list(null)).changes)
    await put('versions/a.txt', 'two, longer')
    const [after] = await files((await connector.list(null)).changes)
    expect(after!.version).not.toBe(before!.version)
    expect(after!.size).toBe(11)
  })
})

describe('s3 read', () => {
  test('returns the bytes of an object', async () => {
    const connector = open({ folder: 'docs/' })
    const file = (await files((await connector.list(null)).changes)).find((f) => f.path === 'page-3.txt')!
    expect(new TextDecoder().decode(await connector.read(file, 1000))).toBe('page 3')
  })

  test('refuses an object larger than the limit, whether its listed size says so or not', async () => {
    await put('big/blob.bin', 'x'.repeat(100_000))
    const connector = open({ folder: 'big/' })
    const [file] = await files((await connector.list(null)).changes)
    expect(await codeOf(connector.read(file!, 99_999))).toBe('file_too_large')
    // An object that grew since it was listed is cut off while streaming.
    expect(await codeOf(connector.read({ ...file!, size: 10 }, 50_000))).toBe('file_too_large')
    expect((await connector.read(file!, 100_000)).byteLength).toBe(100_000)
  })

  test('an object deleted since the listing is file_not_found', async () => {
    await put('gone/soon.txt', 'bye')
    const connector = open({ folder: 'gone/' })
    const [file] = await files((await connector.list(null)).changes)
    await admin.removeObject(BUCKET, 'gone/soon.txt')
    expect(await codeOf(connector.read(file!, 1000))).toBe('file_not_found')
  })

  test('refuses a file id outside the prefix', async () => {
    const connector = open({ folder: 'docs/' })
    const file = {
      id: 'top.txt',
      path: '../top.txt',
      version: 'v',
      size: 3,
      modifiedAt: null,
      contentType: null,
    }
    expect(await codeOf(connector.read(file, 1000))).toBe('file_not_found')
  })
})

describe('s3 validate', () => {
  test('passes for a bucket and prefix the keys can read', async () => {
    await open({ folder: 'docs/' }).validate()
    await open().validate()
  })

  test('an access key the server does not know is bad_credentials', async () => {
    const unknownKey = s3Kind.open({
      settings: { endpoint: s3.endpoint, bucket: BUCKET },
      secrets: { access_key: 'NOBODY', secret_key: s3.secretKey },
      folder: '',
      env: env(),
    })
    expect(await codeOf(unknownKey.validate())).toBe('bad_credentials')
  })

  test("S3's error codes map to the contract's, and the secret is never in the message", async () => {
    // s3rver does not check signatures, so a stand-in answers with the errors AWS and MinIO give.
    const cases = [
      [403, 'SignatureDoesNotMatch', 'bad_credentials'],
      [400, 'ExpiredToken', 'bad_credentials'],
      [400, 'AuthorizationHeaderMalformed', 'bad_credentials'],
      [403, 'AccessDenied', 'permission_denied'],
      [404, 'NoSuchBucket', 'folder_not_found'],
      [400, 'SomethingElse', 'source_error'],
    ] as const
    for (const [status, s3Code, code] of cases) {
      const body = `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${s3Code}</Code><Message>no</Message></Error>`
      const server = Bun.serve({
        hostname: '127.0.0.1',
        port: 0,
        fetch: () => new Response(body, { status, headers: { 'content-type': 'application/xml' } }),
      })
      const error = await open({ endpoint: `http://127.0.0.1:${server.port}`, secret: 'the-secret-xyz' })
        .validate()
        .catch((e) => e)
      expect([s3Code, error.code]).toEqual([s3Code, code])
      expect(error.message).not.toContain('the-secret-xyz')
      await server.stop(true)
    }
  })

  test('a missing bucket or a prefix nothing starts with is folder_not_found', async () => {
    expect(await codeOf(open({ bucket: 'no-such-bucket' }).validate())).toBe('folder_not_found')
    expect(
      await codeOf(
        open({ bucket: 'no-such-bucket' })
          .list(null)
          .then((l) => files(l.changes)),
      ),
    ).toBe('folder_not_found')
    expect(await codeOf(open({ folder: 'nothing-here/' }).validate())).toBe('folder_not_found')
  })

  test('a port nothing listens on is unreachable', async () => {
    const endpoint = `http://127.0.0.1:${await closedPort()}`
    expect(await codeOf(open({ endpoint }).validate())).toBe('unreachable')
  })

  test('a server that never answers is unreachable after the request timeout', async () => {
    const sockets: Socket[] = []
    const silent: Server = createServer((socket) => void sockets.push(socket))
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r))
    const endpoint = `http://127.0.0.1:${(silent.address() as { port: number }).port}`
    const connector = s3Kind.open({
      settings: { endpoint, bucket: BUCKET },
      secrets: { access_key: s3.accessKey, secret_key: s3.secretKey },
      folder: '',
      env: env({ request_timeout_seconds: 0.2 }),
    })
    expect(await codeOf(connector.validate())).toBe('unreachable')
    for (const socket of sockets) socket.destroy()
    await new Promise((r) => silent.close(r))
  })

  test('an object body that stalls is unreachable after the request timeout', async () => {
    const server = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: () =>
        new Response(
          new ReadableStream({
            start: (c) => c.enqueue(new TextEncoder().encode('first bytes')),
          }),
          { headers: { 'content-length': '1000' } },
        ),
    })
    const connector = s3Kind.open({
      settings: { endpoint: `http://127.0.0.1:${server.port}`, bucket: BUCKET },
      secrets: { access_key: s3.accessKey, secret_key: s3.secretKey },
      folder: '',
      env: env({ request_timeout_seconds: 0.2 }),
    })
    const file = {
      id: 'stall.txt',
      path: 'stall.txt',
      version: 'v',
      size: 1000,
      modifiedAt: null,
      contentType: null,
    }
    expect(await codeOf(connector.read(file, 10_000))).toBe('unreachable')
    await server.stop(true)
  })

  test('an unresolvable host is unreachable', async () => {
    expect(await codeOf(open({ endpoint: 'http://no-such-host.invalid' }).validate())).toBe('unreachable')
  })

  test('a busy server is rate_limited; a 5xx without an S3 error reads as unreachable, retried the same', async () => {
    for (const [status, code] of [
      [429, 'rate_limited'],
      [503, 'unreachable'],
      [500, 'unreachable'],
    ] as const) {
      const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('', { status }) })
      expect(await codeOf(open({ endpoint: `http://127.0.0.1:${server.port}` }).validate())).toBe(code)
      await server.stop(true)
    }
  })

  test('the cloud metadata address is egress_denied for validate, list and read', async () => {
    const connector = open({ endpoint: 'http://169.254.169.254' })
    expect(await codeOf(connector.validate())).toBe('egress_denied')
    expect(await codeOf(connector.list(null))).toBe('egress_denied')
    const file = { id: 'a', path: 'a', version: 'v', size: 1, modifiedAt: null, contentType: null }
    expect(await codeOf(connector.read(file, 10))).toBe('egress_denied')
  })

  test('with host-style addressing the bucket host name is checked too', async () => {
    const checked: string[] = []
    const connector = s3Kind.open({
      settings: { endpoint: 'http://s3.example.test', bucket: BUCKET, path_style: false },
      secrets: { access_key: s3.accessKey, secret_key: s3.secretKey },
      folder: '',
      env: {
        ...env(),
        checkHost: async (h) => {
          checked.push(h)
          return []
        },
      },
    })
    await connector.validate().catch(() => {})
    expect(checked.slice(0, 2)).toEqual(['http://s3.example.test', `${BUCKET}.s3.example.test`])
  })
})
