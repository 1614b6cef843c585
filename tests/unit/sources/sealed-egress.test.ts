import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { SealBroken, Sealer } from '../../../src/platform/crypto/sealed'
import { EgressDenied, EgressGuard, refusalOf } from '../../../src/platform/net/egress'

describe('sealed secrets', () => {
  const sealer = new Sealer('s'.repeat(40), 'engram/sources/credentials')

  test('a sealed value opens for its own row and nowhere else', () => {
    const sealed = sealer.seal('{"secret_key":"hunter2"}', 'conn_a')
    expect(sealed).not.toContain('hunter2')
    expect(sealer.open(sealed, 'conn_a')).toBe('{"secret_key":"hunter2"}')
    expect(() => sealer.open(sealed, 'conn_b')).toThrow(SealBroken)
  })

  test('another instance secret or purpose, or a changed byte, does not open it', () => {
    const sealed = sealer.seal('value', 'conn_a')
    expect(() => new Sealer('t'.repeat(40), 'engram/sources/credentials').open(sealed, 'conn_a')).toThrow(
      SealBroken,
    )
    expect(() => new Sealer('s'.repeat(40), 'another purpose').open(sealed, 'conn_a')).toThrow(SealBroken)
    const raw = Buffer.from(sealed.slice(3), 'base64url')
    raw[14] = raw[14]! ^ 1
    expect(() => sealer.open(`v1.${raw.toString('base64url')}`, 'conn_a')).toThrow(SealBroken)
  })

  test('sealing twice gives two different texts (a fresh nonce each time)', () => {
    expect(sealer.seal('same', 'c')).not.toBe(sealer.seal('same', 'c'))
  })
})

describe('the outbound guard', () => {
  test('metadata and link-local addresses are refused whatever the configuration', () => {
    for (const a of [
      '169.254.169.254',
      '169.254.170.2',
      '100.100.100.200',
      'fd00:ec2::254',
      '::ffff:169.254.169.254',
    ]) {
      expect(refusalOf(a, false)).toBe('metadata')
    }
    expect(refusalOf('169.254.1.1', false)).toBe('link_local')
    expect(refusalOf('fe80::1', false)).toBe('link_local')
    expect(refusalOf('0.0.0.0', false)).toBe('unspecified')
  })

  test('private and loopback addresses are allowed unless denied', () => {
    for (const a of ['10.1.2.3', '192.168.0.10', '172.16.5.4', '127.0.0.1', '::1', 'fd12::1']) {
      expect(refusalOf(a, false)).toBeNull()
      expect(refusalOf(a, true)).toBe('private')
    }
    expect(refusalOf('93.184.216.34', true)).toBeNull()
  })

  test('a name is checked by every address it resolves to, and metadata names are refused outright', async () => {
    const guard = new EgressGuard({
      denyPrivateNetworks: false,
      resolve: async (host) =>
        host === 'sneaky.example' ? ['93.184.216.34', '169.254.169.254'] : ['93.184.216.34'],
    })
    await guard.check('https://fine.example/bucket')
    await expect(guard.check('http://sneaky.example:9000')).rejects.toBeInstanceOf(EgressDenied)
    await expect(guard.check('http://metadata.google.internal/computeMetadata/v1/')).rejects.toMatchObject({
      reason: 'metadata',
    })
    await expect(guard.check('http://[fe80::1]:80/')).rejects.toMatchObject({ reason: 'link_local' })
  })

  describe('fetch', () => {
    let server: ReturnType<typeof Bun.serve>
    beforeAll(() => {
      server = Bun.serve({
        hostname: '127.0.0.1',
        port: 0,
        fetch: (req) => {
          const url = new URL(req.url)
          if (url.pathname === '/hop')
            return Response.redirect('http://169.254.169.254/latest/meta-data/', 302)
          if (url.pathname === '/local') return Response.redirect(`${url.origin}/ok`, 302)
          return new Response('ok')
        },
      })
    })
    afterAll(() => server.stop(true))

    test('follows redirects itself and refuses one that points at a metadata address', async () => {
      const guard = new EgressGuard({ denyPrivateNetworks: false })
      const base = `http://127.0.0.1:${server.port}`
      expect(await (await guard.fetch(`${base}/local`)).text()).toBe('ok')
      await expect(guard.fetch(`${base}/hop`)).rejects.toMatchObject({ reason: 'metadata' })
      await expect(new EgressGuard({ denyPrivateNetworks: true }).fetch(`${base}/ok`)).rejects.toMatchObject({
        reason: 'private',
      })
    })
  })
})
