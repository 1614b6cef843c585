import { defineRoute, type RouteDef } from '../../platform/http/route'
import { AllowlistReq, AllowlistResp, toAllowlistResp } from './allowlist.schemas'
import type { AllowlistService } from './allowlist.service'

const TAGS = ['enterprise']

/** `/v1/enterprise/ip-allowlist` (spec, Enterprise): a workspace admin's; an API key needs `admin`. */
export function allowlistRoutes(allowlist: AllowlistService): RouteDef[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/enterprise/ip-allowlist',
      mount: 'v1',
      auth: 'admin',
      scope: 'admin',
      summary: "The workspace's IP allowlist, and the caller's address as the server sees it",
      description:
        '`your_address` is the client address this server worked out (behind a reverse proxy only if the operator trusts it: ENGRAM_TRUSTED_PROXIES), so an admin can check it is listed before enabling.',
      tags: TAGS,
      response: AllowlistResp,
      handler: async ({ principal, ip }) => toAllowlistResp(await allowlist.get(principal.workspaceId, ip)),
    }),
    defineRoute({
      method: 'PUT',
      path: '/enterprise/ip-allowlist',
      mount: 'v1',
      auth: 'admin',
      scope: 'admin',
      summary: "Replace the IP allowlist: the workspace's credentials are refused from other addresses",
      description:
        "Enabled, every request with a session or an API key of the workspace (REST, MCP, streams) from an address not listed answers 403 `ip_not_allowed`; sign-in itself is not blocked, but the session it gives is refused the same way. A list that leaves out the caller's own address is refused with 409 `would_lock_out` unless `confirm_lockout` is true. A bad entry is a 422 naming it.",
      tags: TAGS,
      body: AllowlistReq,
      response: AllowlistResp,
      errors: ['would_lock_out'],
      handler: async ({ principal, body, ip, requestId }) => {
        const change = { enabled: body.enabled, cidrs: body.cidrs, confirmLockout: body.confirm_lockout }
        return toAllowlistResp(await allowlist.put(principal, change, { ip, requestId }))
      },
    }),
  ]
}
