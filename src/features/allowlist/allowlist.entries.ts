// Allowlist entries: what an admin may write, its one canonical text, and the matcher built from a
// saved list. Parsing is stricter than ipaddr.js's own: it reads `010.0.0.1` as octal (8.0.0.1) and
// `10.1` as 10.0.0.1, spellings nobody means in an allowlist, so IPv4 must be four decimal parts.
import ipaddr from 'ipaddr.js'
import { type ValidationIssue, validationFailed } from '../../platform/errors/errors'

/** At most this many entries a workspace: a company's offices and VPN egress fit many times over. */
export const MAX_ENTRIES = 500

type Address = ipaddr.IPv4 | ipaddr.IPv6
type Range = [Address, number]

const BITS = /^\d{1,3}$/

/** An address as an admin writes it: four decimal parts, or IPv6 (any embedded IPv4 decimal too). */
function parseStrictAddress(text: string): Address | null {
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipaddr.IPv4.parse(text)
  if (!text.includes(':') || text.includes('%') || !ipaddr.IPv6.isValid(text)) return null
  const tail = text.slice(text.lastIndexOf(':') + 1)
  if (tail.includes('.') && !ipaddr.IPv4.isValidFourPartDecimal(tail)) return null
  return ipaddr.IPv6.parse(text)
}

/**
 * One entry, parsed: a single address (its own /32 or /128) or a CIDR range, host bits cleared;
 * an IPv4-mapped IPv6 entry (`::ffff:10.0.0.0/104`) becomes the IPv4 one it stands for, as client
 * addresses do (client-address.ts). Null when it is neither; a zone index (`fe80::1%eth0`) names
 * an interface of some host, not a client, and is refused.
 */
export function parseEntry(raw: string): Range | null {
  const text = raw.trim()
  const slash = text.indexOf('/')
  const head = slash === -1 ? text : text.slice(0, slash)
  const tail = slash === -1 ? null : text.slice(slash + 1)
  if (tail !== null && !BITS.test(tail)) return null
  let addr = parseStrictAddress(head)
  if (!addr) return null
  let bits = tail === null ? (addr.kind() === 'ipv4' ? 32 : 128) : Number(tail)
  if (bits > (addr.kind() === 'ipv4' ? 32 : 128)) return null
  if (addr instanceof ipaddr.IPv6 && addr.isIPv4MappedAddress() && bits >= 96) {
    addr = addr.toIPv4Address()
    bits -= 96
  }
  const net =
    addr instanceof ipaddr.IPv4
      ? ipaddr.IPv4.networkAddressFromCIDR(`${addr.toString()}/${bits}`)
      : ipaddr.IPv6.networkAddressFromCIDR(`${addr.toString()}/${bits}`)
  return [net, bits]
}

/** The canonical text of a range: a single address bare, a range as `network/bits`. */
function textOf([net, bits]: Range): string {
  const full = net.kind() === 'ipv4' ? 32 : 128
  return bits === full ? net.toString() : `${net.toString()}/${bits}`
}

/**
 * The entries an admin sent, normalized (canonical text, duplicates dropped, order kept), or a
 * 422 naming each entry that is not an address or a range by its position and text.
 */
export function normalizeEntries(raw: readonly string[]): string[] {
  const issues: ValidationIssue[] = []
  const out = new Set<string>()
  raw.forEach((entry, i) => {
    const range = parseEntry(entry)
    if (range) out.add(textOf(range))
    else {
      issues.push({
        loc: ['body', 'cidrs', i],
        msg: `${JSON.stringify(entry)} is not an IPv4 or IPv6 address or CIDR range (such as 203.0.113.7, 10.0.0.0/8 or 2001:db8::/32)`,
        type: 'value_error',
      })
    }
  })
  if (issues.length > 0) throw validationFailed(issues)
  return [...out]
}

/** Tells whether a client address is in a saved list; built once per list and reused. */
export class AddressMatcher {
  private readonly ranges: Range[]

  constructor(entries: readonly string[]) {
    // Saved entries were normalized on the way in; one that no longer parses matches nothing.
    this.ranges = entries.map(parseEntry).filter((r) => r !== null)
  }

  /** Whether `address` (the client address as the server worked it out) is in the list. */
  allows(address: string): boolean {
    const bare = address.split('%')[0]!
    if (!ipaddr.isValid(bare)) return false
    // A dual-stack socket reports IPv4 clients as ::ffff:a.b.c.d: compared as the IPv4 address.
    const client = ipaddr.process(bare)
    for (const [net, bits] of this.ranges) {
      if (net.kind() === client.kind() && client.match(net, bits)) return true
    }
    return false
  }
}
