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

/** Client addresses whose verdict a matcher remembers; a list's clients are few and come back. */
const MAX_VERDICTS = 4_096

/**
 * Tells whether a client address is in a saved list; built once per list and shared by requests.
 * The list is kept as sorted, disjoint intervals of integers (IPv4 as numbers, IPv6 as bigints),
 * so a lookup is a binary search however long the list, and each address's verdict is remembered:
 * on the request path a repeat client costs a map lookup.
 */
export class AddressMatcher {
  private readonly v4: number[]
  private readonly v6: bigint[]
  private readonly verdicts = new Map<string, boolean>()

  constructor(entries: readonly string[]) {
    const v4: [number, number][] = []
    const v6: [bigint, bigint][] = []
    // Saved entries were normalized on the way in; one that no longer parses matches nothing.
    for (const range of entries.map(parseEntry)) {
      if (!range) continue
      const [net, bits] = range
      if (net instanceof ipaddr.IPv4) {
        const lo = v4Number(net)
        v4.push([lo, lo + 2 ** (32 - bits) - 1])
      } else {
        const lo = v6Number(net as ipaddr.IPv6)
        v6.push([lo, lo + (1n << BigInt(128 - bits)) - 1n])
      }
    }
    this.v4 = merged(v4, (end, start) => start <= end + 1)
    this.v6 = merged(v6, (end, start) => start <= end + 1n)
  }

  /** Whether `address` (the client address as the server worked it out) is in the list. */
  allows(address: string): boolean {
    let verdict = this.verdicts.get(address)
    if (verdict === undefined) {
      verdict = this.judge(address)
      if (this.verdicts.size >= MAX_VERDICTS) this.verdicts.clear()
      this.verdicts.set(address, verdict)
    }
    return verdict
  }

  private judge(address: string): boolean {
    // The resolver's addresses are canonical: IPv4 in four decimal parts, read here without ipaddr.js.
    const quad = DOTTED.exec(address)
    if (quad) {
      const octets = quad.slice(1).map(Number)
      return (
        octets.every((o) => o <= 255) &&
        inside(
          this.v4,
          octets.reduce((n, o) => n * 256 + o, 0),
        )
      )
    }
    let client: ipaddr.IPv4 | ipaddr.IPv6
    try {
      client = ipaddr.parse(address.split('%')[0]!)
    } catch {
      return false
    }
    // A dual-stack socket reports IPv4 clients as ::ffff:a.b.c.d: compared as the IPv4 address.
    if (client instanceof ipaddr.IPv6 && client.isIPv4MappedAddress()) client = client.toIPv4Address()
    return client instanceof ipaddr.IPv4
      ? inside(this.v4, v4Number(client))
      : inside(this.v6, v6Number(client as ipaddr.IPv6))
  }
}

const DOTTED = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/

function v4Number(a: ipaddr.IPv4): number {
  return a.octets.reduce((n, o) => n * 256 + o, 0)
}

function v6Number(a: ipaddr.IPv6): bigint {
  return a.parts.reduce((n, p) => (n << 16n) | BigInt(p), 0n)
}

/**
 * Intervals sorted and joined where they overlap or touch (`touches`: the second starts at most one
 * past the end of the first), flattened to [lo, hi, lo, hi, ...].
 */
function merged<T extends number | bigint>(intervals: [T, T][], touches: (end: T, start: T) => boolean): T[] {
  intervals.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
  const out: T[] = []
  for (const [lo, hi] of intervals) {
    const end = out.at(-1)
    if (end !== undefined && touches(end, lo)) {
      if (hi > end) out[out.length - 1] = hi
    } else out.push(lo, hi)
  }
  return out
}

/** Whether `x` is in one of the flattened, sorted, disjoint intervals (binary search). */
function inside<T extends number | bigint>(flat: T[], x: T): boolean {
  let lo = 0
  let hi = flat.length / 2 - 1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    if (x < (flat[2 * mid] as T)) hi = mid - 1
    else if (x > (flat[2 * mid + 1] as T)) lo = mid + 1
    else return true
  }
  return false
}
