/** Per-request facts the outer layer and the route runner share, keyed by the Request object. */
export interface RequestState {
  requestId: string
  /** Matched route as `METHOD /path/:param`, or null when nothing matched. */
  route: string | null
  workspaceId: string | null
  /**
   * Address of the socket peer (not X-Forwarded-For), or null for a request handed to the app in
   * process rather than over a socket.
   */
  peer: string | null
  /** An unexpected error to log (never sent to the client). */
  error?: unknown
}

const states = new WeakMap<Request, RequestState>()

/** Attaches a fresh state to a request. */
export function startRequest(request: Request, requestId: string, peer: string | null = null): RequestState {
  const state: RequestState = { requestId, route: null, workspaceId: null, peer }
  states.set(request, state)
  return state
}

/** The state of a request; a request that bypassed the outer layer gets an anonymous one. */
export function requestState(request: Request): RequestState {
  return states.get(request) ?? startRequest(request, 'req_unknown')
}
