// Who a request comes from, for rate limits and the audit trail. Behind a reverse proxy every
// socket is the proxy's, so the client's address is what the proxy wrote into X-Forwarded-For;
// but the header is a list any client can start, so it is read from the right and only as far
// as the hops are trusted proxies (docs/deployment.md).
import type { Logger } from '../log/log'
import { canonicalAddress, parseAddress, TrustedProxies } from './trusted-proxies'

/** What the resolver is built from: `server.trusted_proxies`, `server.trust_proxy` and the log. */
export interface ClientAddressOptions {
  /** `server.trusted_proxies`: addresses, CIDR ranges, `loopback`, `private`, comma-separated. */
  trustedProxies: string
  /**
   * `server.trust_proxy` (the older switch): the socket peer is trusted whatever its address, so
   * the last X-Forwarded-For hop is the client unless that hop is itself a listed proxy.
   */
  trustPeer: boolean
  log: Logger
}

/** Headers that say a proxy stands between the client and this server. */
const PROXY_HEADERS = ['x-forwarded-for', 'forwarded', 'x-real-ip']

// A request handed to the app in process (tests, tools) has no socket: it comes from this machine.
const IN_PROCESS = '127.0.0.1'

/** Works out the client address of requests; one per app, so its warning is logged once per process. */
export class ClientAddresses {
  private readonly trusted: TrustedProxies
  private warned = false

  constructor(private readonly o: ClientAddressOptions) {
    this.trusted = new TrustedProxies(o.trustedProxies)
  }

  /**
   * The client's address: the socket peer, unless the peer is a trusted proxy; then the
   * X-Forwarded-For hops are walked from the right (the one the peer appended) past every trusted
   * proxy, and the first hop that is not one is the client. Hops left of it were written by the
   * client or by proxies nobody vouches for, so they are never read: a client cannot choose its
   * address by prepending one. A hop that is not an address ends the walk at the last good one.
   */
  resolve(peerAddress: string | null, headers: Headers): string {
    const peer = canonicalAddress(peerAddress ?? IN_PROCESS) ?? peerAddress ?? IN_PROCESS
    const parsed = parseAddress(peer)
    const peerTrusted = this.o.trustPeer || (parsed !== null && this.trusted.has(parsed))
    if (!peerTrusted) {
      if (!this.warned) this.warnIfProxied(peer, headers)
      return peer
    }
    // Several X-Forwarded-For headers read as one list, in order (Headers.get joins them).
    const forwarded = headers.get('x-forwarded-for')
    if (!forwarded) return peer
    const hops = forwarded.split(',')
    let client = peer
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = parseHop(hops[i]!)
      if (hop === null) break
      client = hop.toString()
      if (!this.trusted.has(hop)) break
    }
    return client
  }

  /**
   * Forwarded headers from a peer nobody trusts: either a proxy the operator forgot to name (then
   * every client shares the proxy's address, and one client's failed sign-ins slow everyone's),
   * or a client pretending. Said once, with the setting that fixes the first case.
   */
  private warnIfProxied(peer: string, headers: Headers): void {
    const header = PROXY_HEADERS.find((h) => headers.has(h))
    if (!header) return
    this.warned = true
    this.o.log.warn(
      'forwarded headers from a peer that is not a trusted proxy were ignored: if a reverse proxy of yours sends them, set ENGRAM_TRUSTED_PROXIES (server.trusted_proxies) to its address, or "loopback" for a proxy on this machine (logged once)',
      { peer, header },
    )
  }
}

/** One X-Forwarded-For entry: an address, perhaps bracketed or with a port as some proxies write it. */
function parseHop(raw: string) {
  let hop = raw.trim()
  if (hop.startsWith('[')) hop = hop.slice(1, hop.indexOf(']') > 0 ? hop.indexOf(']') : undefined)
  else if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(hop)) hop = hop.slice(0, hop.lastIndexOf(':'))
  return parseAddress(hop)
}
