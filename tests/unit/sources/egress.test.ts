// The outbound guard (src/platform/net/egress.ts): which hosts a tenant's endpoint may name, that the
// connection goes to the address that was judged, and what a redirect may carry.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createServer } from 'node:net'
import { networkInterfaces } from 'node:os'
import type { ConnectorEnv } from '../../../src/features/sources/connectors/connector'
import { gdriveKind } from '../../../src/features/sources/connectors/gdrive'
import { s3Kind } from '../../../src/features/sources/connectors/s3'
import { ClientCredentials } from '../../../src/features/sources/connectors/sharepoint.token'
import { ManualClock } from '../../../src/platform/clock/clock'
import { loadConfig } from '../../../src/platform/config/config.load'
import { memoryLogger } from '../../../src/platform/log/log'
import { ownAddresses } from '../../../src/platform/net/address-policy'
import {
  dnsResolver,
  EgressDenied,
  EgressGuard,
  type EgressOptions,
  refusalOf,
} from '../../../src/platform/net/egress'
import { type S3Standin, startS3rver } from '../../helpers/standins/s3rver'

/** Names the tests resolve themselves; anything else goes to the system resolver (localhost). */
const NAMES: Record<string, string[]> = {
  'public.test': ['93.184.216.34'],
  'public6.test': ['2606:2800:220:1:248:1893:25c8:1946'],
  'rebind.test': ['93.184.216.34', '127.0.0.1'],
  'meta.test': ['169.254.169.254'],
  'mapped.test': ['::ffff:127.0.0.1'],
  'nat64.test': ['64:ff9b::a9fe:a9fe'],
  'lan.test': ['10.1.2.3'],
}
const resolve = async (host: string) => NAMES[host] ?? dnsResolver(host)

/** This "server" has one interface address besides loopback: 10.9.8.7 (and its IPv6 twin). */
const OWN = () => new Set(['127.0.0.1', '0:0:0:0:0:0:0:1', '10.9.8.7', 'fd00:0:0:0:0:0:0:7'])

function guard(o: Partial<EgressOptions> = {}): EgressGuard {
  return new EgressGuard({ denyPrivateNetworks: false, resolve, ownAddresses: OWN, ...o })
}

async function reasonOf(p: Promise<unknown>): Promise<string> {
  try {
    await p
    return 'allowed'
  } catch (e) {
    return e instanceof EgressDenied ? e.reason : `${(e as Error).name}: ${(e as Error).message}`
  }
}

describe('hosts a tenant may not name', () => {
  // Each host is written as a tenant would put it in an endpoint URL. With the defaults (loopback not
  // allowed, private networks allowed), every one of them is refused, with the reason given.
  const HOSTILE: [string, string][] = [
    // Loopback, however it is spelled.
    ['127.0.0.1', 'loopback'],
    ['localhost', 'loopback'],
    ['LOCALHOST', 'loopback'],
    ['127.1', 'loopback'],
    ['127.0.0.1.', 'loopback'],
    ['127.0.0.01', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['2130706433', 'loopback'],
    ['0177.0.0.1', 'loopback'],
    ['0x7f.1', 'loopback'],
    ['0x7f000001', 'loopback'],
    ['%31%32%37.0.0.1', 'loopback'],
    ['[::1]', 'loopback'],
    ['[0:0:0:0:0:0:0:1]', 'loopback'],
    // IPv6 forms that carry a loopback IPv4 address.
    ['[::ffff:127.0.0.1]', 'loopback'],
    ['[::ffff:7f00:1]', 'loopback'],
    ['[0:0:0:0:0:ffff:7f00:1]', 'loopback'],
    ['[::127.0.0.1]', 'loopback'],
    ['[::ffff:0:127.0.0.1]', 'loopback'],
    ['[64:ff9b::127.0.0.1]', 'loopback'],
    ['[64:ff9b:1::7f00:1]', 'loopback'],
    ['[2002:7f00:1::1]', 'loopback'],
    ['[2001:0:7f00:1::1]', 'loopback'],
    ['[2001:0:4136:e378:8000:63bf:80ff:fffe]', 'loopback'],
    ['[2001:db8:1::5efe:7f00:1]', 'loopback'],
    ['[2001:db8:1::200:5efe:7f00:1]', 'loopback'],
    // This server's own interfaces, directly and inside IPv6.
    ['10.9.8.7', 'loopback'],
    ['[::ffff:10.9.8.7]', 'loopback'],
    ['[fd00::7]', 'loopback'],
    // Cloud metadata, directly and inside every IPv6 form that carries it.
    ['169.254.169.254', 'metadata'],
    ['2852039166', 'metadata'],
    ['[::ffff:169.254.169.254]', 'metadata'],
    ['[::ffff:a9fe:a9fe]', 'metadata'],
    ['[::a9fe:a9fe]', 'metadata'],
    ['[::169.254.169.254]', 'metadata'],
    ['[64:ff9b::a9fe:a9fe]', 'metadata'],
    ['[64:ff9b::169.254.169.254]', 'metadata'],
    ['[64:ff9b:1:a9fe:a9:fe00::]', 'metadata'],
    ['[64:ff9b:1::a9fe:a9fe]', 'metadata'],
    ['[2002:a9fe:a9fe::1]', 'metadata'],
    ['[2001:0:a9fe:a9fe::1]', 'metadata'],
    ['[2001:0:4136:e378:8000:63bf:5601:5601]', 'metadata'],
    ['[2001:db8::5efe:a9fe:a9fe]', 'metadata'],
    ['[fd00:ec2::254]', 'metadata'],
    ['169.254.170.2', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['metadata.google.internal', 'metadata'],
    ['metadata.google.internal.', 'metadata'],
    // Link-local, unspecified (0.0.0.0 is this host), broadcast and multicast.
    ['169.254.1.1', 'link_local'],
    ['[fe80::1]', 'link_local'],
    ['[::ffff:169.254.1.1]', 'link_local'],
    ['0.0.0.0', 'unspecified'],
    ['0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['[::]', 'unspecified'],
    ['[::ffff:0.0.0.0]', 'unspecified'],
    ['255.255.255.255', 'unspecified'],
    ['224.0.0.1', 'unspecified'],
    ['[ff02::1]', 'unspecified'],
    // Names: every address they resolve to is judged, one bad address is enough.
    ['rebind.test', 'loopback'],
    ['meta.test', 'metadata'],
    ['mapped.test', 'loopback'],
    ['nat64.test', 'metadata'],
  ]

  test.each(HOSTILE)('http://%s:9000 is refused (%s)', async (host, reason) => {
    expect(await reasonOf(guard().check(`http://${host}:9000/`))).toBe(reason)
  })

  test('the same hosts, given bare (as the S3 connector checks a bucket host), are refused the same', async () => {
    for (const [host, reason] of HOSTILE) {
      const bare = host.replace(/^\[|\]$/g, '')
      expect([host, await reasonOf(guard().check(bare))]).toEqual([host, reason])
    }
  })

  test('refusalOf judges an IPv6 address by the IPv4 address it carries', () => {
    const policy = { denyPrivateNetworks: false, allowLoopback: false, own: new Set<string>() }
    expect(refusalOf('64:ff9b::a9fe:a9fe', policy)).toBe('metadata')
    expect(refusalOf('2002:a9fe:a9fe::1', policy)).toBe('metadata')
    expect(refusalOf('::a9fe:a9fe', policy)).toBe('metadata')
    expect(refusalOf('2002:5db8:d822::1', policy)).toBeNull()
    expect(refusalOf('64:ff9b::5db8:d822', policy)).toBeNull()
  })

  test('only http and https are spoken', async () => {
    for (const url of ['file:///etc/passwd', 'ftp://public.test/', 'gopher://public.test:70/']) {
      expect(await reasonOf(guard().check(url))).toBe('scheme')
    }
  })

  test('with private networks denied, private ranges are refused too, however they are written', async () => {
    const strict = guard({ denyPrivateNetworks: true })
    for (const host of ['10.1.2.3', '192.168.0.10', '172.16.5.4', '100.64.0.1', '[fd12::1]', 'lan.test']) {
      expect([host, await reasonOf(strict.check(`http://${host}/`))]).toEqual([host, 'private'])
    }
    for (const host of ['[::ffff:10.1.2.3]', '[64:ff9b::10.1.2.3]', '[2002:c0a8:a::1]', '167837955']) {
      expect([host, await reasonOf(strict.check(`http://${host}/`))]).toEqual([host, 'private'])
    }
    // And loopback stays refused, even where the operator allowed it: the stricter setting wins.
    expect(
      await reasonOf(guard({ denyPrivateNetworks: true, allowLoopback: true }).check('http://127.0.0.1/')),
    ).toBe('private')
  })
})

describe('hosts a tenant may name', () => {
  test('public addresses and names, and private networks unless denied', async () => {
    for (const host of [
      '93.184.216.34',
      '8.8.8.8',
      '[2001:4860:4860::8888]',
      '[2606:2800:220:1:248:1893:25c8:1946]',
      'public.test',
      'public6.test',
      '[2002:5db8:d822::1]',
      '[64:ff9b::5db8:d822]',
      '10.1.2.3',
      '192.168.0.10',
      '[fd12::1]',
      '10.9.8.8',
    ]) {
      expect([host, await reasonOf(guard().check(`https://${host}/bucket`))]).toEqual([host, 'allowed'])
    }
  })

  test('check returns the addresses it judged, the only ones a connection may use', async () => {
    expect(await guard().check('https://public.test/')).toEqual(['93.184.216.34'])
    expect(await guard({ allowLoopback: true }).check('http://2130706433/')).toEqual(['127.0.0.1'])
  })

  test('loopback and the own addresses, once the operator allows them (sources.allow_loopback)', async () => {
    const open = guard({ allowLoopback: true })
    for (const host of [
      '127.0.0.1',
      'localhost',
      '127.1',
      '2130706433',
      '[::1]',
      '[::ffff:127.0.0.1]',
      '10.9.8.7',
    ]) {
      expect([host, await reasonOf(open.check(`http://${host}:9000/`))]).toEqual([host, 'allowed'])
    }
    // Metadata and link-local stay refused whatever the operator allows.
    for (const host of ['169.254.169.254', '[64:ff9b::a9fe:a9fe]', '[fe80::1]']) {
      expect([host, await reasonOf(open.check(`http://${host}/`))]).not.toEqual([host, 'allowed'])
    }
  })

  test("the server's own addresses are its interfaces, loopback included", () => {
    const own = ownAddresses()
    expect(own.has('127.0.0.1')).toBe(true)
    for (const list of Object.values(networkInterfaces())) {
      for (const a of list ?? []) {
        if (a.family === 'IPv4') expect(own.has(a.address)).toBe(true)
      }
    }
  })
})

/** A ConnectorEnv over a guard, with the request timeout given (seconds; below 1 in tests). */
function envOf(g: EgressGuard, config: Partial<ConnectorEnv['config']> = {}): ConnectorEnv {
  return {
    config: { ...loadConfig({ env: {}, readFile: () => null }).sources, ...config },
    fetch: g.fetch,
    checkHost: g.check,
    clock: new ManualClock(),
    log: memoryLogger(),
  }
}

/** What a loopback server was sent. */
interface Seen {
  method: string
  path: string
  host: string | null
  authorization: string | null
  cookie: string | null
  body: string
}

function recorder(answer: (req: Request, seen: Seen) => Response | Promise<Response>) {
  const seen: Seen[] = []
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: async (req) => {
      const s: Seen = {
        method: req.method,
        path: new URL(req.url).pathname,
        host: req.headers.get('host'),
        authorization: req.headers.get('authorization'),
        cookie: req.headers.get('cookie'),
        body: await req.text(),
      }
      seen.push(s)
      return answer(req, s)
    },
  })
  return { server, seen, origin: `http://127.0.0.1:${server.port}` }
}

describe('the connection goes to the address that was judged', () => {
  const site = recorder(() => new Response('ok'))
  let s3: S3Standin
  beforeAll(async () => {
    s3 = await startS3rver()
  })
  afterAll(async () => {
    site.server.stop(true)
    await s3.stop()
  })

  test('fetch resolves a name once, by the guard, and connects to that address with the name as Host', async () => {
    // A rebinding DNS server: the first answer passes, every later one is the metadata service.
    let asked = 0
    const g = new EgressGuard({
      denyPrivateNetworks: false,
      allowLoopback: true,
      resolve: async () => (++asked === 1 ? ['127.0.0.1'] : ['169.254.169.254']),
    })
    const res = await g.fetch(`http://rebind.invalid:${site.server.port}/x`)
    expect(await res.text()).toBe('ok')
    expect(asked).toBe(1)
    expect(site.seen.at(-1)).toMatchObject({ path: '/x', host: `rebind.invalid:${site.server.port}` })
  })

  test('the S3 client connects to the judged address too, and is refused when the name turns bad', async () => {
    const port = new URL(s3.endpoint).port
    const open = (host: string, g: EgressGuard) =>
      s3Kind.open({
        settings: { endpoint: `http://${host}:${port}`, bucket: 'no-such-bucket' },
        secrets: { access_key: s3.accessKey, secret_key: s3.secretKey },
        folder: '',
        env: envOf(g),
      })
    // The system resolver knows no `.invalid` name: an S3 answer (the bucket is missing) proves the
    // client reached the stand-in through the address the guard gave it.
    const pinned = new EgressGuard({
      denyPrivateNetworks: false,
      allowLoopback: true,
      resolve: async () => ['127.0.0.1'],
    })
    expect(
      await open('s3.pinned.invalid', pinned)
        .validate()
        .catch((e) => e.code),
    ).toBe('folder_not_found')
    // The name is judged again when the client connects: once it resolves to loopback, which this
    // guard does not allow, nothing is sent.
    let asked = 0
    const rebinding = new EgressGuard({
      denyPrivateNetworks: false,
      resolve: async () => (++asked <= 2 ? ['93.184.216.34'] : ['127.0.0.1']),
    })
    const error = await open('s3.rebind.invalid', rebinding)
      .validate()
      .catch((e) => e)
    expect([error.code, asked]).toEqual(['egress_denied', 3])
  })
})

describe('redirects', () => {
  const elsewhere = recorder(() => new Response('landed'))
  const origin = recorder((req, s) => {
    const here = new URL(req.url).origin
    const to = (status: number, location: string) => new Response(null, { status, headers: { location } })
    if (s.path.startsWith('/login/')) return to(307, `${elsewhere.origin}/steal`)
    if (s.path === '/307') return to(307, `${elsewhere.origin}/steal`)
    if (s.path === '/308') return to(308, `${elsewhere.origin}/steal`)
    if (s.path === '/302') return to(302, `${elsewhere.origin}/landing`)
    if (s.path === '/same-307') return to(307, `${here}/echo`)
    if (s.path === '/meta') return to(302, 'http://169.254.169.254/latest/meta-data/')
    if (s.path === '/file') return to(302, 'file:///etc/passwd')
    if (s.path === '/loop') return to(302, '/loop')
    return Response.json(s)
  })
  afterAll(() => {
    elsewhere.server.stop(true)
    origin.server.stop(true)
  })
  const g = guard({ allowLoopback: true })
  const secretPost = (path: string, init: RequestInit = {}) =>
    g.fetch(`${origin.origin}${path}`, {
      method: 'POST',
      headers: {
        authorization: 'Bearer tok-123',
        cookie: 'sid=abc',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'client_secret=s3cr3t-value',
      ...init,
    })

  test('a 307 or 308 to another origin is refused: the body and the credentials never leave', async () => {
    for (const path of ['/307', '/308']) {
      expect([path, await reasonOf(secretPost(path))]).toEqual([path, 'redirect'])
    }
    expect(elsewhere.seen).toEqual([])
  })

  test('a 302 to another origin goes on as a GET without the body, Authorization or Cookie', async () => {
    const before = elsewhere.seen.length
    expect(await (await secretPost('/302')).text()).toBe('landed')
    const get = await g.fetch(`${origin.origin}/302`, {
      headers: { authorization: 'Bearer tok-123', cookie: 'sid=abc' },
    })
    expect(await get.text()).toBe('landed')
    expect(elsewhere.seen.slice(before)).toEqual([
      {
        method: 'GET',
        path: '/landing',
        host: new URL(elsewhere.origin).host,
        authorization: null,
        cookie: null,
        body: '',
      },
      {
        method: 'GET',
        path: '/landing',
        host: new URL(elsewhere.origin).host,
        authorization: null,
        cookie: null,
        body: '',
      },
    ])
  })

  test('a redirect within the origin keeps the method, the body and the credentials', async () => {
    const echoed = (await (await secretPost('/same-307')).json()) as Seen
    expect(echoed).toMatchObject({
      method: 'POST',
      path: '/echo',
      authorization: 'Bearer tok-123',
      body: 'client_secret=s3cr3t-value',
    })
  })

  test("redirect 'error' refuses any redirect, even within the origin; 'manual' hands it back", async () => {
    expect(await reasonOf(secretPost('/same-307', { redirect: 'error' }))).toBe('redirect')
    const manual = await g.fetch(`${origin.origin}/302`, { redirect: 'manual' })
    expect([manual.status, manual.headers.get('location')]).toEqual([302, `${elsewhere.origin}/landing`])
  })

  test('every hop is judged again', async () => {
    expect(await reasonOf(g.fetch(`${origin.origin}/meta`))).toBe('metadata')
    expect(await reasonOf(g.fetch(`${origin.origin}/file`))).toBe('scheme')
    expect(await reasonOf(g.fetch(`${origin.origin}/loop`))).toBe('redirect')
  })

  test("SharePoint's token request is never redirected: the client secret stays with the login service", async () => {
    const env = envOf(g, { microsoft_login_url: `${origin.origin}/login`, request_timeout_seconds: 5 })
    const tokens = new ClientCredentials(env, {
      tenantId: 't1',
      clientId: 'c1',
      clientSecret: 's3cr3t-value',
    })
    const error = await tokens.get().catch((e) => e)
    expect(elsewhere.seen.filter((s) => s.path === '/steal')).toEqual([])
    expect(JSON.stringify(elsewhere.seen)).not.toContain('s3cr3t-value')
    expect(error.code).toBe('egress_denied')
  })

  test("Drive's token request is never redirected: the client secret and refresh token stay home", async () => {
    const env = envOf(g, {
      google_token_url: `${origin.origin}/login/google-token`,
      gdrive_api_url: `${origin.origin}/drive`,
      request_timeout_seconds: 5,
    })
    const connector = gdriveKind.open({
      settings: { auth: 'oauth', client_id: 'client-1' },
      secrets: { client_secret: 's3cr3t-value', refresh_token: 'refresh-value' },
      folder: 'root',
      env,
    })
    const code = await connector.validate().catch((e) => e.code)
    expect(
      origin.seen.some((s) => s.path === '/login/google-token' && s.body.includes('refresh-value')),
    ).toBe(true)
    expect(elsewhere.seen.filter((s) => s.path === '/steal')).toEqual([])
    expect(code).toBe('egress_denied')
  })
})

describe('an S3 endpoint on a port of this machine', () => {
  let s3: S3Standin
  const web = recorder(
    () => new Response('<html>admin console</html>', { headers: { 'content-type': 'text/html' } }),
  )
  const failing = recorder(() => new Response('oops', { status: 500 }))
  const tcp: { port: number; close(): void }[] = []
  let closed = 0

  async function tcpServer(onConnection: (socket: import('node:net').Socket) => void) {
    const server = createServer(onConnection)
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    const entry = { port: (server.address() as { port: number }).port, close: () => server.close() }
    tcp.push(entry)
    return entry.port
  }

  beforeAll(async () => {
    s3 = await startS3rver()
    closed = await tcpServer(() => {})
    tcp.pop()?.close()
  })
  afterAll(async () => {
    await s3.stop()
    web.server.stop(true)
    failing.server.stop(true)
    for (const t of tcp) t.close()
  })

  const validate = async (port: number, g: EgressGuard) => {
    const connector = s3Kind.open({
      settings: { endpoint: `http://127.0.0.1:${port}`, bucket: 'docs' },
      secrets: { access_key: 'AKIAPROBE', secret_key: 'probe-secret-value' },
      folder: '',
      env: envOf(g, { request_timeout_seconds: 0.3 }),
    })
    const e = await connector.validate().then(
      () => null,
      (err) => err,
    )
    return e && { code: e.code, message: e.message }
  }

  test('with loopback not allowed, a closed, a web and an S3 port answer the same, and none is contacted', async () => {
    const g = guard()
    const ports = [closed, web.server.port ?? 0, Number(new URL(s3.endpoint).port)]
    const answers = await Promise.all(ports.map((p) => validate(p, g)))
    expect(answers[0]).toEqual({
      code: 'egress_denied',
      message: `Outbound requests to "127.0.0.1" are not allowed (loopback or this server's own address, allowed only by sources.allow_loopback).`,
    })
    expect(answers[1]).toEqual(answers[0])
    expect(answers[2]).toEqual(answers[0])
    expect(web.seen).toEqual([])
  })

  test('where a host may be reached, every port that is no S3 server reads the same: no errno, no status', async () => {
    const g = guard({ allowLoopback: true })
    const ports = [
      closed,
      await tcpServer((s) => s.destroy()),
      await tcpServer((s) => s.end('SSH-2.0-OpenSSH_9.6\r\n')),
      await tcpServer(() => {}),
      web.server.port ?? 0,
      failing.server.port ?? 0,
    ]
    const answers = await Promise.all(ports.map((p) => validate(p, g)))
    for (const a of answers) {
      expect(a).toEqual({
        code: 'unreachable',
        message: 'The S3 endpoint could not be reached, or did not answer as an S3 server.',
      })
    }
    // An S3 server answers as one: the keys are refused.
    expect((await validate(Number(new URL(s3.endpoint).port), g))?.code).toBe('bad_credentials')
  })
})
