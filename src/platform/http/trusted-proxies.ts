// The reverse proxies whose word about the client's address is believed (`server.trusted_proxies`).
// An address a proxy forwards is only as good as the proxy: anyone else can write any
// X-Forwarded-For they like, so a hop counts only when it is on this list.
import ipaddr from 'ipaddr.js'

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number]

/** Names an operator may write instead of ranges. */
const NAMED: Record<string, string[]> = {
  // The proxy runs on this machine (nginx or Caddy on the same host).
  loopback: ['127.0.0.0/8', '::1/128'],
  // The proxy is on a private network (another container, another host of the LAN). Everyone on
  // those networks is then believed: use it only when the server is unreachable from them otherwise.
  private: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
}

/**
 * An address as the matcher compares it: parsed, IPv4-mapped IPv6 (`::ffff:127.0.0.1`, what a
 * dual-stack socket reports) turned into its IPv4 form. Null when it is not an IP address.
 */
export function parseAddress(text: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  // A zone index (fe80::1%eth0) names an interface, not another host.
  const bare = text.split('%')[0]!
  if (!ipaddr.isValid(bare)) return null
  return ipaddr.process(bare)
}

/** The canonical text of an address (`::ffff:10.0.0.1` -> `10.0.0.1`), or null when it is none. */
export function canonicalAddress(text: string): string | null {
  return parseAddress(text)?.toString() ?? null
}

/** Problems of a `server.trusted_proxies` value, one per bad entry; empty when every entry parses. */
export function trustedProxyProblems(list: string): string[] {
  return entries(list)
    .filter((e) => !NAMED[e] && parseRange(e) === null)
    .map(
      (e) =>
        `server.trusted_proxies: ${JSON.stringify(e)} is not an address, a CIDR range, "loopback" or "private"`,
    )
}

/** The set of proxies allowed to tell the client's address; built from `server.trusted_proxies`. */
export class TrustedProxies {
  private readonly ranges: Range[]

  constructor(list: string) {
    this.ranges = entries(list).flatMap((e) => (NAMED[e] ?? [e]).map(parseRange).filter((r) => r !== null))
  }

  /** Whether any proxy is trusted at all. */
  get any(): boolean {
    return this.ranges.length > 0
  }

  /** Whether `address` (parsed) is one of the trusted proxies. */
  has(address: ipaddr.IPv4 | ipaddr.IPv6): boolean {
    for (const [net, bits] of this.ranges) {
      if (net.kind() === address.kind() && address.match(net, bits)) return true
    }
    return false
  }
}

function entries(list: string): string[] {
  return list
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter((e) => e.length > 0)
}

/** A CIDR range, or a single address as its own /32 or /128; null when it is neither. */
function parseRange(entry: string): Range | null {
  try {
    if (entry.includes('/')) {
      const [net, bits] = ipaddr.parseCIDR(entry)
      return net.kind() === 'ipv6' && (net as ipaddr.IPv6).isIPv4MappedAddress()
        ? [(net as ipaddr.IPv6).toIPv4Address(), Math.max(0, bits - 96)]
        : [net, bits]
    }
    const one = parseAddress(entry)
    return one ? [one, one.kind() === 'ipv4' ? 32 : 128] : null
  } catch {
    return null
  }
}
