// Who may run a route: the credential's principal, where it comes from (the access check), then
// the route's scope and role. Either check may answer with a promise (reads on the store); the
// synchronous path stays without one.
import type { AccessCheck, Authenticator, Caller, Principal } from '../auth/principal'
import { fail } from '../errors/errors'
import type { ClientAddresses } from './client-address'
import type { RequestState } from './request-state'
import type { RouteDef } from './route'

/** What authorizing a request needs of the mount's dependencies. */
export interface AuthorizeDeps {
  clients: ClientAddresses
  authenticate: Authenticator
  admit?: AccessCheck
}

/** The principal of a request, admitted and allowed on the route; a promise when a check is one. */
export function authorize(
  route: RouteDef,
  request: Request,
  state: RequestState,
  deps: AuthorizeDeps,
): Principal | Promise<Principal> {
  const found = deps.authenticate(request)
  return found instanceof Promise
    ? found.then((p) => admit(route, request, state, deps, p))
    : admit(route, request, state, deps, found)
}

function admit(
  route: RouteDef,
  request: Request,
  state: RequestState,
  deps: AuthorizeDeps,
  principal: Principal,
): Principal | Promise<Principal> {
  // Known before any refusal below, so that the request's log line names the workspace.
  state.workspaceId = principal.workspaceId
  // Every credentialed request, whatever its scope or role, is first checked for where it comes from.
  const checked = deps.admit?.(principal, callerOf(request, state, deps.clients))
  return checked instanceof Promise ? checked.then(() => permit(route, principal)) : permit(route, principal)
}

/** The route's scope and role rules. */
function permit(route: RouteDef, principal: Principal): Principal {
  if (route.scope && principal.scopes !== null && !principal.scopes.includes(route.scope)) {
    throw fail('missing_scope', `API key missing required scope: ${route.scope}`)
  }
  if (route.auth === 'admin' && principal.role !== 'admin') throw fail('admin_required')
  return principal
}

/** The caller of a request; its address is worked out only if the check reads it. */
function callerOf(request: Request, state: RequestState, clients: ClientAddresses): Caller {
  let ip: string | undefined
  return {
    get ip() {
      if (ip === undefined) ip = clients.resolve(state.peer, request.headers)
      return ip
    },
    requestId: state.requestId,
    route: state.route,
  }
}
