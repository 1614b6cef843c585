// The outbound guard for requests a tenant points somewhere (sources): a host is resolved and every
// address it resolves to is checked before anything connects. Link-local and cloud metadata
// addresses are never reachable; private networks are, unless the operator denies them.
import { lookup } from 'node:dns/promises'
import ipaddr from 'ipaddr.js'

/** Why an address was refused. */
export type EgressRefusal = 'metadata' | 'link_local' | 'private' | 'unspecified' | 'unresolvable'

/** A destination the guard refuses, with the reason; the caller words it for the person. */
export class EgressDenied extends Error {
  override name = 'EgressDenied'
  constructor(
    readonly host: string,
    readonly reason: EgressRefusal,
  ) {
    super(
      reason === 'unresolvable'
        ? `The host "${host}" could not be resolved.`
        : `Outbound requests to "${host}" are not allowed (${REASONS[reason]}).`,
    )
  }
}

const REASONS: Record<EgressRefusal, string> = {
  metadata: 'a cloud metadata address',
  link_local: 'a link-local address',
  private: 'a private or loopback address, denied by sources.deny_private_networks',
  unspecified: 'an unspecified or broadcast address',
  unresolvable: 'no address',
}

/** Names that answer with a cloud provider's instance metadata whatever they resolve to. */
const METADATA_NAMES = new Set(['metadata.google.internal', 'metadata.goog', 'metadata', 'instance-data'])

/** Addresses of instance metadata services (AWS, GCP, Azure, Oracle: 169.254.169.254; Alibaba; AWS IPv6). */
const METADATA_ADDRESSES = new Set(['169.254.169.254', '169.254.170.2', '100.100.100.200', 'fd00:ec2::254'])

const PRIVATE_RANGES = new Set(['private', 'loopback', 'uniqueLocal', 'carrierGradeNat'])

/** How an address is classed, or null when any request may reach it. */
export function refusalOf(address: string, denyPrivate: boolean): EgressRefusal | null {
  if (!ipaddr.isValid(address)) return 'unresolvable'
  let ip = ipaddr.parse(address)
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) {
    ip = (ip as ipaddr.IPv6).toIPv4Address()
  }
  if (METADATA_ADDRESSES.has(ip.toNormalizedString()) || METADATA_ADDRESSES.has(ip.toString())) {
    return 'metadata'
  }
  const range = ip.range()
  if (range === 'linkLocal') return 'link_local'
  if (range === 'unspecified' || range === 'broadcast' || range === 'multicast') return 'unspecified'
  if (denyPrivate && PRIVATE_RANGES.has(range)) return 'private'
  return null
}

/** The host of a URL or a bare host name, without brackets or port. */
export function hostOf(urlOrHost: string): string {
  let host = urlOrHost
  try {
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(urlOrHost)) host = new URL(urlOrHost).hostname
  } catch {
    return urlOrHost
  }
  return host.replace(/^\[|\]$/g, '').toLowerCase()
}

/** Resolves a host; returns its addresses (an IP literal resolves to itself). */
export type Resolver = (host: string) => Promise<string[]>

export const dnsResolver: Resolver = async (host) => {
  const found = await lookup(host, { all: true, verbatim: true })
  return found.map((a) => a.address)
}

/** Checks destinations before a client library connects to them. */
export class EgressGuard {
  constructor(private readonly o: { denyPrivateNetworks: boolean; resolve?: Resolver }) {}

  /** Throws EgressDenied unless every address the host resolves to may be reached. */
  async check(urlOrHost: string): Promise<void> {
    const host = hostOf(urlOrHost)
    if (METADATA_NAMES.has(host.replace(/\.$/, ''))) throw new EgressDenied(host, 'metadata')
    let addresses: string[]
    try {
      addresses = ipaddr.isValid(host) ? [host] : await (this.o.resolve ?? dnsResolver)(host)
    } catch {
      throw new EgressDenied(host, 'unresolvable')
    }
    if (addresses.length === 0) throw new EgressDenied(host, 'unresolvable')
    for (const a of addresses) {
      const refusal = refusalOf(a, this.o.denyPrivateNetworks)
      if (refusal) throw new EgressDenied(host, refusal)
    }
  }

  /** `fetch` that checks the destination first, and every redirect's, by following them itself. */
  fetch: typeof fetch = (async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    let url = input instanceof Request ? input.url : String(input)
    let request = init
    for (let hop = 0; hop < 5; hop++) {
      await this.check(url)
      const response = await fetch(input instanceof Request && hop === 0 ? input : url, {
        ...request,
        redirect: 'manual',
      })
      const location = response.headers.get('location')
      if (response.status < 300 || response.status >= 400 || !location) return response
      url = new URL(location, url).toString()
      // A redirect is followed with GET and no body, as browsers do for 301-303.
      if (response.status <= 303) request = { ...request, method: 'GET', body: null }
    }
    throw new Error(`Too many redirects from ${hostOf(url)}.`)
  }) as typeof fetch
}
