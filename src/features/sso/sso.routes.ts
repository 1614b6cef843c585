import { actorOf } from '../../platform/auth/principal'
import { defineRoute, type RouteDef, reply } from '../../platform/http/route'
import {
  RecoveryCodesResp,
  SsoCallbackQuery,
  SsoCheckResp,
  SsoSettingsReq,
  SsoSettingsResp,
  SsoStartReq,
  SsoStartResp,
} from './sso.schemas'
import type { SsoService } from './sso.service'

const TAGS = ['enterprise']

/**
 * `/v1/enterprise/sso` (a workspace admin's set-up; an API key needs the `admin` scope) and the
 * public `/auth/sso/*` sign-in routes (spec, Accounts and sign-in; Enterprise).
 */
export function ssoRoutes(sso: SsoService): RouteDef[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/enterprise/sso',
      mount: 'v1',
      auth: 'admin',
      scope: 'admin',
      summary: "The workspace's single sign-on set-up (never the client secret)",
      description:
        'Answers `{configured: false, redirect_uri}` when the workspace has none: the redirect URI is registered at the provider first.',
      tags: TAGS,
      response: SsoSettingsResp,
      handler: ({ principal }) => sso.get(principal.workspaceId),
    }),
    defineRoute({
      method: 'PUT',
      path: '/enterprise/sso',
      mount: 'v1',
      // The answer that turns enforcement on carries recovery codes, which are never stored.
      idempotent: 'once',
      auth: 'admin',
      scope: 'admin',
      summary: 'Set up or replace single sign-on (OpenID Connect) for the workspace',
      description:
        'The client secret is stored encrypted and never returned; left out, the stored one is kept. A domain belongs to one workspace (409 `sso_domain_taken`). Turning `enforce` on refuses password sign-in (`sso_required`), ends the password sessions signed in until now, and answers ten `recovery_codes`, this once.',
      tags: TAGS,
      body: SsoSettingsReq,
      response: SsoSettingsResp,
      errors: ['sso_domain_taken'],
      handler: ({ principal, body, ip, requestId }) =>
        sso.put(principal.workspaceId, body, actorOf(principal, ip, requestId)),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/enterprise/sso',
      mount: 'v1',
      auth: 'admin',
      scope: 'admin',
      summary: 'Remove single sign-on: members sign in with their passwords again',
      description: 'Sessions ended by enforcement stay ended. 404 when the workspace has no set-up.',
      tags: TAGS,
      status: 204,
      handler: async ({ principal, ip, requestId }) => {
        await sso.delete(principal.workspaceId, actorOf(principal, ip, requestId))
        return reply(204)
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/enterprise/sso/test',
      mount: 'v1',
      // A check has no effect to replay.
      idempotent: false,
      auth: 'admin',
      scope: 'admin',
      summary: 'Check the set-up against the provider: discovery, its key set, the token endpoint',
      description:
        'Each check says what it found or exactly what failed; the token endpoint is sent a made-up code with the client credentials (`invalid_grant` back means they were accepted).',
      tags: TAGS,
      response: SsoCheckResp,
      handler: ({ principal }) => sso.test(principal.workspaceId),
    }),
    defineRoute({
      method: 'POST',
      path: '/enterprise/sso/recovery-codes',
      mount: 'v1',
      idempotent: 'once',
      auth: 'admin',
      scope: 'admin',
      summary: 'New break-glass recovery codes (shown once); every earlier code stops working',
      description:
        '409 `sso_not_enforced` while enforcement is off: the codes are for an enforcing workspace.',
      tags: TAGS,
      response: RecoveryCodesResp,
      errors: ['sso_not_enforced'],
      handler: async ({ principal, ip, requestId }) => ({
        recovery_codes: await sso.newRecoveryCodes(principal.workspaceId, actorOf(principal, ip, requestId)),
      }),
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/sso/start',
      // The answer sets the flow's cookie, bound to this browser; a replay would not.
      idempotent: false,
      auth: 'none',
      summary: "Where a work address signs in: its workspace's identity provider",
      description:
        "404 `sso_not_configured` when no workspace set single sign-on up for the address's domain. Limited per client address (`sso.start_per_ip_minute`, 429 `rate_limited` with `Retry-After`), every start counted. The answer sets a short-lived cookie that binds the sign-in to this browser; the callback refuses a flow without it.",
      tags: ['auth'],
      body: SsoStartReq,
      response: SsoStartResp,
      errors: ['sso_not_configured', 'sso_provider_error', 'rate_limited'],
      handler: async ({ body, ip, requestId }) => {
        const out = await sso.start(body.email, { ip, requestId })
        return reply(200, { authorization_url: out.authorizationUrl }, { 'set-cookie': out.cookie })
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/auth/sso/callback',
      auth: 'none',
      summary: 'Where the identity provider sends the browser back',
      description:
        "Always a redirect. Success: `/console/auth/callback#access_token=...&token_type=bearer&expires_at=...` (the session in the fragment, never in a log or a Referer). Failure: `/console/sign-in?error=<code>`, the code from the error table (`invalid_state`, `sso_token_invalid`, `email_not_verified`, `email_taken`, `identity_mismatch`, `sso_domain_not_claimed`, `seat_cap_reached`, `plan_limit_reached`, ...) or the provider's own (`access_denied`).",
      tags: ['auth'],
      query: SsoCallbackQuery,
      status: 302,
      handler: async ({ request, url, ip, requestId }) => {
        const out = await sso.callback(request, url.searchParams, { ip, requestId })
        return reply(302, undefined, {
          location: out.location,
          'set-cookie': out.cookie,
          'cache-control': 'no-store',
        })
      },
    }),
  ]
}
