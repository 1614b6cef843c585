/** What tells a request's socket peer: Bun's `Server` (the router is not listening itself). */
export interface PeerSource {
  requestIP(request: Request): { address: string } | null
}

/** Per-request facts the outer layer and the route runner share, keyed by the Request object. */
export class RequestState {
  /** Matched route as `METHOD /path/:param`, or null when nothing matched. */
  route: string | null = null
  workspaceId: string | null = null
  /** An unexpected error to log (never sent to the client). */
  error?: unknown
  private peerAddress: string | null | undefined

  constructor(
    private readonly request: Request,
    readonly requestId: string,
    private readonly source: PeerSource | undefined,
  ) {}

  /**
   * Address of the socket peer (not X-Forwarded-For), or null for a request handed to the app in
   * process rather than over a socket. Asked of the server only when first read: Bun builds an
   * address object on every call, and most routes never look.
   */
  get peer(): string | null {
    if (this.peerAddress === undefined) {
      this.peerAddress = this.source?.requestIP(this.request)?.address ?? null
    }
    return this.peerAddress
  }
}

const states = new WeakMap<Request, RequestState>()

/** Attaches a fresh state to a request; `source` is the server it arrived on (none in process). */
export function startRequest(request: Request, requestId: string, source?: PeerSource): RequestState {
  const state = new RequestState(request, requestId, source)
  states.set(request, state)
  return state
}

/** The state of a request; a request that bypassed the outer layer gets an anonymous one. */
export function requestState(request: Request): RequestState {
  return states.get(request) ?? startRequest(request, 'req_unknown')
}

/**
 * The path of a request URL, as `new URL(url).pathname` gives it, without parsing the URL: a
 * Request's `url` is already serialized by the WHATWG rules (Bun normalizes dot segments and
 * percent-encodes), so the path runs from the first `/` after the authority to `?` or `#`.
 */
export function pathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2)
  if (start === -1) return '/'
  let end = url.indexOf('?', start)
  const hash = url.indexOf('#', start)
  if (end === -1 || (hash !== -1 && hash < end)) end = hash
  return end === -1 ? url.slice(start) : url.slice(start, end)
}
