// `fetch` for destinations a tenant chose: every hop is judged by the outbound guard, the connection
// goes to the address that was judged (the URL's host swapped for it; the Host header and the TLS
// server name keep the name, so virtual hosts and certificates still work), and redirects are
// followed here rather than by the runtime, so that none of them escapes the rules below.
import { EgressDenied } from './egress-denied'

/** Redirects followed before giving up (the runtime's own limit is 20; ours need one or two). */
const MAX_REDIRECTS = 4

/** Headers that carry credentials: they stay with the origin they were meant for. */
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization']

/** Headers that describe a body, dropped with it. */
const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding', 'content-language']

const isRedirect = (status: number) => [301, 302, 303, 307, 308].includes(status)

/** The URL with its host replaced by a judged address, and the TLS options that keep the name. */
function pinned(url: URL, address: string): { target: string; tls?: { serverName: string } } {
  const target = new URL(url)
  target.hostname = address.includes(':') ? `[${address}]` : address
  const name = url.hostname.replace(/\.$/, '')
  const named = target.hostname !== url.hostname
  return url.protocol === 'https:' && named
    ? { target: target.href, tls: { serverName: name } }
    : { target: target.href }
}

/**
 * A fetch over `check` (the guard: judges a URL's host and returns the addresses that may be used).
 * The caller's `redirect` is honoured: `manual` returns a redirect as it came (the caller follows it,
 * through this fetch again), `error` refuses any (token requests: their body holds a secret), and
 * `follow` (the default) follows up to four, each judged again. A redirect to another origin drops
 * Authorization, Cookie and Proxy-Authorization, and one that would re-send a body there (307, 308)
 * is refused: a secret meant for one service never reaches another.
 */
export function guardedFetch(check: (url: string) => Promise<string[]>): typeof fetch {
  return (async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const first = new Request(input, init)
    const mode = first.redirect
    const signal = first.signal
    let url = new URL(first.url)
    let method = first.method
    const headers = new Headers(first.headers)
    // Buffered, so that a same-origin 307 or 308 can send it again; these are small API requests.
    let body: ArrayBuffer | null = first.body ? await first.arrayBuffer() : null
    for (let hop = 0; ; hop++) {
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        throw new EgressDenied(url.protocol, 'scheme')
      }
      const [address] = await check(url.href)
      if (!address) throw new EgressDenied(url.hostname, 'unresolvable')
      const { target, tls } = pinned(url, address)
      headers.set('host', url.host)
      const response = await fetch(target, {
        method,
        headers,
        body,
        signal,
        redirect: 'manual',
        ...(tls ? { tls } : {}),
      } as RequestInit)
      const location = response.headers.get('location')
      if (!isRedirect(response.status) || !location || mode === 'manual') return response
      await response.body?.cancel()
      const next = new URL(location, url)
      if (mode === 'error') {
        throw new EgressDenied(next.hostname, 'redirect', 'this request is never redirected')
      }
      if (hop >= MAX_REDIRECTS) throw new EgressDenied(next.hostname, 'redirect', 'too many redirects')
      // As browsers do: 303 always, and 301 and 302 of a POST, go on as a GET without the body.
      if (response.status === 303 || (response.status <= 302 && method === 'POST')) {
        if (method !== 'HEAD') method = 'GET'
        body = null
        for (const h of BODY_HEADERS) headers.delete(h)
      }
      if (next.origin !== url.origin) {
        if (body !== null) {
          throw new EgressDenied(
            next.hostname,
            'redirect',
            'a request body is never sent on to another origin',
          )
        }
        for (const h of CREDENTIAL_HEADERS) headers.delete(h)
      }
      url = next
    }
  }) as typeof fetch
}
