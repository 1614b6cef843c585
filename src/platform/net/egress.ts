// The outbound guard for requests a tenant points somewhere (sources): a host is read the way the
// WHATWG URL parser reads it, resolved, and every address it resolves to is judged
// (address-policy.ts) before anything connects; the connection is then made to a judged address,
// never to a second resolution of the name (which a rebinding DNS server could answer differently).
import { lookup } from 'node:dns/promises'
import type { LookupFunction } from 'node:net'
import { type AddressPolicy, isIpLiteral, ownAddresses, refusalOf } from './address-policy'
import { EgressDenied } from './egress-denied'
import { guardedFetch } from './guarded-fetch'

export { refusalOf } from './address-policy'
export { EgressDenied, type EgressRefusal } from './egress-denied'

/** Names that answer with a cloud provider's instance metadata whatever they resolve to. */
const METADATA_NAMES = new Set(['metadata.google.internal', 'metadata.goog', 'metadata', 'instance-data'])

const URL_WITH_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i

/**
 * The host of a URL or a bare host name as the WHATWG URL parser reads it (the parser every client
 * here uses): lower case, numeric IPv4 forms (2130706433, 0x7f.1, 0177.0.0.1, 127.1) as dotted
 * quads, IPv6 in canonical form without brackets. Null when it is no host at all.
 */
export function hostOf(urlOrHost: string): string | null {
  const bare = urlOrHost.includes(':') && !URL_WITH_SCHEME.test(urlOrHost) ? `[${urlOrHost}]` : urlOrHost
  try {
    const host = new URL(URL_WITH_SCHEME.test(urlOrHost) ? urlOrHost : `http://${bare}`).hostname
    return host ? host.replace(/^\[|\]$/g, '') : null
  } catch {
    return null
  }
}

/** Resolves a host; returns its addresses (an IP literal resolves to itself). */
export type Resolver = (host: string) => Promise<string[]>

export const dnsResolver: Resolver = async (host) => {
  const found = await lookup(host, { all: true, verbatim: true })
  return found.map((a) => a.address)
}

export interface EgressOptions {
  /** Refuse private networks too (`sources.deny_private_networks`). */
  denyPrivateNetworks: boolean
  /** Allow loopback and this server's own addresses (`sources.allow_loopback`); refused when left out. */
  allowLoopback?: boolean
  resolve?: Resolver
  /** This server's addresses; tests give their own. */
  ownAddresses?: () => ReadonlySet<string>
}

/** Checks destinations before a client connects to them, and connects only to what it judged. */
export class EgressGuard {
  constructor(private readonly o: EgressOptions) {}

  /**
   * Throws EgressDenied unless every address the host resolves to may be reached; returns those
   * addresses, the only ones a connection to this host may use.
   */
  check = async (urlOrHost: string): Promise<string[]> => {
    if (URL_WITH_SCHEME.test(urlOrHost) && !/^https?:\/\//i.test(urlOrHost)) {
      throw new EgressDenied(`${urlOrHost.split(':')[0]}:`, 'scheme')
    }
    const host = hostOf(urlOrHost)
    if (!host) throw new EgressDenied(urlOrHost, 'unresolvable')
    if (METADATA_NAMES.has(host.replace(/\.$/, ''))) throw new EgressDenied(host, 'metadata')
    let addresses: string[]
    try {
      addresses = isIpLiteral(host) ? [host] : await (this.o.resolve ?? dnsResolver)(host)
    } catch {
      throw new EgressDenied(host, 'unresolvable')
    }
    if (addresses.length === 0) throw new EgressDenied(host, 'unresolvable')
    const policy: AddressPolicy = {
      denyPrivateNetworks: this.o.denyPrivateNetworks,
      allowLoopback: this.o.allowLoopback ?? false,
      own: (this.o.ownAddresses ?? ownAddresses)(),
    }
    for (const a of addresses) {
      if (!isIpLiteral(a)) throw new EgressDenied(host, 'unresolvable')
      const refusal = refusalOf(a, policy)
      if (refusal) throw new EgressDenied(host, refusal)
    }
    return addresses
  }

  /** A `dns.lookup` for node:http(s) clients (the minio client): only judged addresses come back. */
  lookup: LookupFunction = judgedLookup(this.check)

  /**
   * `fetch` that judges every destination, connects to the judged address, and follows redirects
   * itself: each hop is judged again, and credentials and bodies never go on to another origin.
   */
  fetch: typeof fetch = guardedFetch(this.check)
}

/**
 * A `dns.lookup`-shaped function over a judging resolver. Node and Bun skip the lookup for an IP
 * literal, so a client must judge a literal host itself before it connects (clientFor does).
 */
export function judgedLookup(check: (host: string) => Promise<string[]>): LookupFunction {
  return ((hostname: string, options: unknown, callback?: unknown) => {
    const done = (typeof options === 'function' ? options : callback) as (
      err: Error | null,
      address?: string | { address: string; family: number }[],
      family?: number,
    ) => void
    const o = (typeof options === 'object' && options ? options : {}) as { all?: boolean; family?: unknown }
    const family = Number(String(typeof options === 'number' ? options : (o.family ?? 0)).replace('IPv', ''))
    check(hostname).then(
      (addresses) => {
        const list = addresses
          .map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))
          .filter((a) => !family || a.family === family)
        const first = list[0]
        if (!first) {
          done(Object.assign(new Error(`No IPv${family} address for ${hostname}.`), { code: 'ENOTFOUND' }))
        } else if (o.all) done(null, list)
        else done(null, first.address, first.family)
      },
      (e: Error) => done(e),
    )
  }) as LookupFunction
}
