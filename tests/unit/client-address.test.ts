import { describe, expect, test } from 'bun:test'
import { ClientAddresses } from '../../src/platform/http/client-address'
import { trustedProxyProblems } from '../../src/platform/http/trusted-proxies'
import { memoryLogger } from '../../src/platform/log/log'
import { clientKey } from '../../src/platform/rate-limit/rate-limit'

// Issue 32, item 2: the client address behind trusted proxies, read from the right.

const resolver = (trustedProxies: string, trustPeer = false) => {
  const log = memoryLogger()
  return { log, clients: new ClientAddresses({ trustedProxies, trustPeer, log }) }
}
const xff = (value: string) => new Headers({ 'x-forwarded-for': value })

describe('the client address', () => {
  const cases: [string, string, string | null, string, string][] = [
    // [what, trusted_proxies, peer, X-Forwarded-For, client]
    ['no proxy trusted: the peer, whatever the header says', '', '127.0.0.1', '203.0.113.9', '127.0.0.1'],
    ['a trusted same-host proxy: the hop it appended', 'loopback', '127.0.0.1', '203.0.113.9', '203.0.113.9'],
    [
      'the peer in IPv4-mapped form is still loopback',
      'loopback',
      '::ffff:127.0.0.1',
      '203.0.113.9',
      '203.0.113.9',
    ],
    ['IPv6 loopback', 'loopback', '::1', '2001:db8::7', '2001:db8::7'],
    ['in process (no socket) counts as loopback', 'loopback', null, '203.0.113.9', '203.0.113.9'],
    [
      'a spoofed left-most entry is never read',
      'loopback',
      '127.0.0.1',
      '10.9.9.9, 203.0.113.9',
      '203.0.113.9',
    ],
    [
      'hops through listed proxies are skipped',
      'loopback, 10.0.0.0/8',
      '127.0.0.1',
      '1.1.1.1, 198.51.100.7, 10.0.0.5',
      '198.51.100.7',
    ],
    ['an unlisted middle hop is the client', 'loopback', '127.0.0.1', '198.51.100.7, 10.0.0.5', '10.0.0.5'],
    [
      'an untrusted peer is the client even with a header',
      '10.0.0.0/8',
      '198.51.100.1',
      '203.0.113.9',
      '198.51.100.1',
    ],
    [
      'every hop trusted: the left-most',
      'loopback,private',
      '127.0.0.1',
      '10.1.1.1, 192.168.0.2',
      '10.1.1.1',
    ],
    [
      'garbage ends the walk at the last good hop',
      'loopback,10.0.0.0/8',
      '127.0.0.1',
      'evil, 10.0.0.5',
      '10.0.0.5',
    ],
    ['garbage right after the peer: the peer', 'loopback', '127.0.0.1', '203.0.113.9, unknown', '127.0.0.1'],
    ['a port or brackets are read through', 'loopback', '127.0.0.1', '[2001:db8::1]:443', '2001:db8::1'],
    ['an IPv4 hop with a port', 'loopback', '127.0.0.1', '203.0.113.9:5123', '203.0.113.9'],
    ['an IPv4-mapped hop reads as IPv4', 'loopback', '127.0.0.1', '::ffff:203.0.113.9', '203.0.113.9'],
    ['a single trusted address', '192.0.2.10', '192.0.2.10', '203.0.113.9', '203.0.113.9'],
    ['an address outside a CIDR range', '192.0.2.0/30', '192.0.2.4', '203.0.113.9', '192.0.2.4'],
  ]
  for (const [what, trusted, peer, header, client] of cases) {
    test(what, () => {
      expect(resolver(trusted).clients.resolve(peer, xff(header))).toBe(client)
    })
  }

  test('several X-Forwarded-For headers read as one list, right-most last', () => {
    const headers = new Headers()
    headers.append('x-forwarded-for', '10.9.9.9')
    headers.append('x-forwarded-for', '203.0.113.9')
    expect(resolver('loopback').clients.resolve('127.0.0.1', headers)).toBe('203.0.113.9')
  })

  test('ENGRAM_TRUST_PROXY=true trusts the peer, whatever it is, and takes the last hop', () => {
    const { clients } = resolver('', true)
    expect(clients.resolve('198.51.100.1', xff('10.9.9.9, 203.0.113.9'))).toBe('203.0.113.9')
    expect(clients.resolve('198.51.100.1', new Headers())).toBe('198.51.100.1')
    // With proxies listed as well, it walks past them.
    expect(resolver('10.0.0.0/8', true).clients.resolve('198.51.100.1', xff('203.0.113.9, 10.0.0.5'))).toBe(
      '203.0.113.9',
    )
  })
})

describe('forwarded headers from a peer nobody trusts', () => {
  test('are logged once per process, naming the setting to change', () => {
    const { clients, log } = resolver('')
    expect(clients.resolve('127.0.0.1', new Headers())).toBe('127.0.0.1')
    expect(log.lines).toEqual([])
    clients.resolve('127.0.0.1', xff('203.0.113.9'))
    clients.resolve('127.0.0.1', new Headers({ forwarded: 'for=203.0.113.9' }))
    clients.resolve('198.51.100.1', new Headers({ 'x-real-ip': '203.0.113.9' }))
    expect(log.lines).toEqual([
      {
        time: expect.any(String),
        level: 'warn',
        msg: expect.stringContaining('set ENGRAM_TRUSTED_PROXIES (server.trusted_proxies)'),
        peer: '127.0.0.1',
        header: 'x-forwarded-for',
      },
    ])
  })

  test('Forwarded and X-Real-IP alone are noticed too; a trusted peer is never warned about', () => {
    const real = resolver('')
    real.clients.resolve('127.0.0.1', new Headers({ 'x-real-ip': '203.0.113.9' }))
    expect(real.log.lines).toMatchObject([{ level: 'warn', header: 'x-real-ip' }])
    const trusted = resolver('loopback')
    trusted.clients.resolve('127.0.0.1', xff('203.0.113.9'))
    expect(trusted.log.lines).toEqual([])
  })
})

describe('server.trusted_proxies', () => {
  test('takes addresses, CIDR ranges, loopback and private; anything else is a problem per entry', () => {
    expect(trustedProxyProblems('')).toEqual([])
    expect(trustedProxyProblems('loopback, private, 10.0.0.0/8, ::1, 2001:db8::/32, 192.0.2.7')).toEqual([])
    expect(trustedProxyProblems('10.0.0.0/33, proxy.example.com, loopback')).toEqual([
      'server.trusted_proxies: "10.0.0.0/33" is not an address, a CIDR range, "loopback" or "private"',
      'server.trusted_proxies: "proxy.example.com" is not an address, a CIDR range, "loopback" or "private"',
    ])
  })
})

describe('rate-limit keys', () => {
  test('an IPv6 client counts by its /64; IPv4 and mapped IPv4 by the address', () => {
    expect(clientKey('2001:db8:1:2::9')).toBe(clientKey('2001:db8:1:2:ffff::1'))
    expect(clientKey('2001:db8:1:3::9')).not.toBe(clientKey('2001:db8:1:2::9'))
    expect(clientKey('203.0.113.9')).toBe('203.0.113.9')
    expect(clientKey('::ffff:203.0.113.9')).toBe('203.0.113.9')
  })
})
