import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import ipaddr from 'ipaddr.js'
import { AddressMatcher, normalizeEntries } from '../../../src/features/allowlist/allowlist.entries'

// The allowlist's matcher keeps a list as merged integer intervals searched by bisection; these
// properties hold it to what ipaddr.js's own `match` says of every entry, one by one.

const v4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((o) => o.join('.'))
// Few distinct high groups, so that ranges and addresses often meet.
const v6 = fc
  .tuple(fc.constantFrom(0x2001, 0xfd00), fc.nat(3), fc.array(fc.nat(0xffff), { minLength: 6, maxLength: 6 }))
  .map(([a, b, rest]) => [a, b, ...rest].map((p) => p.toString(16)).join(':'))
const v4Range = fc.tuple(v4, fc.nat(32)).map(([a, bits]) => `${a}/${bits}`)
const v6Range = fc.tuple(v6, fc.nat(128)).map(([a, bits]) => `${a}/${bits}`)
const entry = fc.oneof(v4, v6, v4Range, v6Range)
// Addresses near the entries: a dual-stack peer's mapped IPv4 too.
const client = fc.oneof(
  v4,
  v6,
  v4.map((a) => `::ffff:${a}`),
)

/** What ipaddr.js says, entry by entry (entries as saved: normalized). */
function naive(entries: string[], address: string): boolean {
  const a = ipaddr.process(address)
  return entries.some((e) => {
    const [net, bits] = e.includes('/') ? ipaddr.parseCIDR(e) : [ipaddr.parse(e), e.includes(':') ? 128 : 32]
    return net.kind() === a.kind() && a.match(net, bits)
  })
}

describe('the allowlist matcher', () => {
  test('agrees with ipaddr.js on every entry, for IPv4, IPv6 and IPv4-mapped clients', () => {
    fc.assert(
      fc.property(
        fc.array(entry, { maxLength: 12 }),
        fc.array(client, { minLength: 1, maxLength: 20 }),
        (raw, clients) => {
          const saved = normalizeEntries(raw)
          const m = new AddressMatcher(saved)
          for (const c of clients) expect(m.allows(c)).toBe(naive(saved, c))
        },
      ),
      { seed: 36, numRuns: 400 },
    )
  })

  test('finds the edges of merged, touching and nested ranges', () => {
    const m = new AddressMatcher([
      '10.0.0.0/25',
      '10.0.0.128/25',
      '10.0.0.64/26',
      '10.0.2.0/24',
      '2001:db8::/127',
    ])
    const cases: [string, boolean][] = [
      ['9.255.255.255', false],
      ['10.0.0.0', true],
      ['10.0.0.255', true],
      ['10.0.1.0', false],
      ['10.0.2.0', true],
      ['10.0.2.255', true],
      ['10.0.3.0', false],
      ['2001:db8::', true],
      ['2001:db8::1', true],
      ['2001:db8::2', false],
      ['::ffff:10.0.0.7', true],
      ['not an address', false],
    ]
    for (const [address, allowed] of cases) expect([address, m.allows(address)]).toEqual([address, allowed])
  })

  test('an empty list and the whole address space', () => {
    expect(new AddressMatcher([]).allows('203.0.113.1')).toBe(false)
    const all = new AddressMatcher(['0.0.0.0/0', '::/0'])
    for (const a of ['0.0.0.0', '255.255.255.255', '::', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff']) {
      expect(all.allows(a)).toBe(true)
    }
  })

  test('normalizing twice changes nothing', () => {
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 12 }), (raw) => {
        const once = normalizeEntries(raw)
        expect(normalizeEntries(once)).toEqual(once)
      }),
      { seed: 36, numRuns: 200 },
    )
  })
})
