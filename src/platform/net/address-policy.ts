// How one IP address a tenant's request would reach is judged. Ranges come from ipaddr.js; what this
// file adds is the policy (which ranges are refused, and when) and the IPv4 address hidden inside
// IPv6 forms that translators and tunnels deliver to (NAT64, 6to4, Teredo, ISATAP, mapped and
// compatible addresses): such an address is judged by the IPv4 address it carries, since that is
// where the packets end up.
import { networkInterfaces } from 'node:os'
import ipaddr from 'ipaddr.js'

/** Why an address was refused. */
export type AddressRefusal = 'metadata' | 'link_local' | 'loopback' | 'private' | 'unspecified'

/** What the operator allows beyond the public internet. */
export interface AddressPolicy {
  /** Refuse private, unique-local and carrier-grade NAT ranges, and loopback, too (`sources.deny_private_networks`). */
  denyPrivateNetworks: boolean
  /** Allow loopback and this server's own addresses (`sources.allow_loopback`): stand-ins, evaluations. */
  allowLoopback: boolean
  /** This server's own addresses, as `ownAddresses()` gives them. */
  own: ReadonlySet<string>
}

/** Addresses of instance metadata services (AWS, GCP, Azure, Oracle: 169.254.169.254; ECS; Alibaba; AWS IPv6). */
const METADATA_ADDRESSES = new Set(
  ['169.254.169.254', '169.254.170.2', '100.100.100.200', 'fd00:ec2::254'].map(normalized),
)

/** Ranges no request may reach: nothing listens there for us, or everyone does (0.0.0.0 is this host). */
const NEVER = new Set(['unspecified', 'broadcast', 'multicast'])

/** Ranges of networks behind the server's edge, refused when the operator denies private networks. */
const PRIVATE_RANGES = new Set([
  'private',
  'uniqueLocal',
  'carrierGradeNat',
  'deprecatedSiteLocal',
  'reserved',
  'benchmarking',
])

/** The canonical text of an address (full IPv6 groups, dotted IPv4), as the policy's sets hold them. */
function normalized(address: string): string {
  return ipaddr.parse(address).toNormalizedString()
}

/** This server's interface addresses (loopback included), zone ids dropped; read on every call, as interfaces come and go. */
export function ownAddresses(): Set<string> {
  const out = new Set<string>()
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) {
      const bare = a.address.split('%')[0] ?? ''
      if (ipaddr.isValid(bare)) out.add(normalized(bare))
    }
  }
  return out
}

/** The IPv4 address in four bytes of an IPv6 address. */
function v4(b: number[], at: readonly [number, number, number, number]): ipaddr.IPv4 {
  return new ipaddr.IPv4(at.map((i) => b[i] ?? 0))
}

/** Where RFC 6052 puts the IPv4 address for each prefix length (bits 64-71 are skipped). */
const RFC6052_LAYOUTS = {
  32: [4, 5, 6, 7],
  40: [5, 6, 7, 9],
  48: [6, 7, 9, 10],
  56: [7, 9, 10, 11],
  64: [9, 10, 11, 12],
  96: [12, 13, 14, 15],
} as const

/**
 * An IPv4 address carried by an IPv6 one. `local`: this machine's own stack delivers to it (mapped
 * and compatible forms), so even 0.0.0.0 (this host) counts; otherwise a translator or tunnel does.
 */
export interface CarriedIPv4 {
  ip: ipaddr.IPv4
  local: boolean
}

/**
 * Every IPv4 address an IPv6 address may deliver to, through this machine's stack, a translator or
 * a tunnel. An address that matches several forms yields each candidate, and the caller refuses it
 * when any is refused.
 */
export function embeddedIPv4(ip: ipaddr.IPv6): CarriedIPv4[] {
  const b = ip.toByteArray()
  const zero = (from: number, to: number) => b.slice(from, to).every((x) => x === 0)
  const out: CarriedIPv4[] = []
  const carry = (at: readonly [number, number, number, number], local = false) =>
    out.push({ ip: v4(b, at), local })
  const last = RFC6052_LAYOUTS[96]
  // IPv4-mapped ::ffff:a.b.c.d, and IPv4-translated ::ffff:0:a.b.c.d (RFC 6145).
  if (zero(0, 10) && b[10] === 0xff && b[11] === 0xff) carry(last, true)
  if (zero(0, 8) && b[8] === 0xff && b[9] === 0xff && zero(10, 12)) carry(last, true)
  // IPv4-compatible ::a.b.c.d: deprecated, but stacks still route it to the IPv4 host. `::` and
  // `::1` are themselves (unspecified, loopback), not 0.0.0.0 and 0.0.0.1.
  if (zero(0, 12) && !(zero(12, 15) && (b[15] ?? 0) <= 1)) carry(last, true)
  // NAT64: the well-known prefix 64:ff9b::/96, and the local-use 64:ff9b:1::/48 (RFC 8215), whose
  // prefix length the operator chose: every layout that fits inside it is judged.
  if (b[0] === 0 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b) {
    if (zero(4, 12)) carry(last)
    if (b[4] === 0 && b[5] === 1) {
      for (const at of [RFC6052_LAYOUTS[48], RFC6052_LAYOUTS[56], RFC6052_LAYOUTS[64], last]) carry(at)
    }
  }
  // 6to4 2002:aabb:ccdd::/48 (RFC 3056).
  if (b[0] === 0x20 && b[1] === 0x02) carry([2, 3, 4, 5])
  // Teredo 2001:0::/32 (RFC 4380): the server's address in the clear, the client's with its bits inverted.
  if (b[0] === 0x20 && b[1] === 0x01 && b[2] === 0 && b[3] === 0) {
    carry([4, 5, 6, 7])
    out.push({ ip: new ipaddr.IPv4(b.slice(12, 16).map((x) => x ^ 0xff)), local: false })
  }
  // ISATAP interface identifier [0-3]00:5efe:a.b.c.d (RFC 5214), under any prefix.
  if ((b[8] ?? 0) <= 3 && b[9] === 0 && b[10] === 0x5e && b[11] === 0xfe) carry(last)
  return out
}

/** One address, IPv4 or IPv6, on its own range. */
function judge(ip: ipaddr.IPv4 | ipaddr.IPv6, policy: AddressPolicy): AddressRefusal | null {
  const text = ip.toNormalizedString()
  if (METADATA_ADDRESSES.has(text)) return 'metadata'
  const range = ip.range()
  if (range === 'linkLocal') return 'link_local'
  if (NEVER.has(range)) return 'unspecified'
  // Loopback and the server's own interfaces are the server itself: its admin ports, its database,
  // the other services on the machine. Only the operator may open them to tenants' endpoints, and
  // denying private networks denies them too (the stricter setting wins).
  const self = range === 'loopback' || policy.own.has(text)
  if (policy.denyPrivateNetworks && (self || PRIVATE_RANGES.has(range))) return 'private'
  if (self && !policy.allowLoopback) return 'loopback'
  return null
}

/**
 * Why `address` (an IP literal) may not be reached, or null when it may. An IPv6 address is refused
 * when any IPv4 address it carries is refused, and otherwise judged on its own range.
 */
export function refusalOf(address: string, policy: AddressPolicy): AddressRefusal | null {
  const ip = ipaddr.parse(address)
  if (ip.kind() === 'ipv6') {
    for (const carried of embeddedIPv4(ip as ipaddr.IPv6)) {
      const refusal = judge(carried.ip, policy)
      // A translator or tunnel does not deliver to 0.0.0.0/8: such a candidate is a layout that is
      // not in use (64:ff9b:1::a.b.c.d read as /48), not a destination.
      if (refusal && !(refusal === 'unspecified' && !carried.local)) return refusal
    }
  }
  return judge(ip, policy)
}

/** True for an IP literal as the URL parser leaves it (dotted-quad IPv4, or IPv6 without brackets). */
export function isIpLiteral(host: string): boolean {
  return ipaddr.IPv4.isValidFourPartDecimal(host) || ipaddr.IPv6.isValid(host)
}
