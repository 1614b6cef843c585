import { defineRoute, type RouteDef, reply } from '../../platform/http/route'
import { TokenResp } from '../accounts/accounts.schemas'
import { LinkAccountInfoResp, LinkAccountReq, ProviderCallbackQuery } from './identity.schemas'
import type { IdentityService, Landing } from './identity.service'

const TAGS = ['auth']

/** A browser redirect, setting or clearing the flow cookie. */
function redirect(l: Landing) {
  const headers: Record<string, string> = { location: l.location }
  if (l.cookie) headers['set-cookie'] = l.cookie
  return reply(302, undefined, headers)
}

/** `/auth/google/*` and `/auth/link*` (spec, Accounts and sign-in). */
export function identityRoutes(identity: IdentityService): RouteDef[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/auth/google/login',
      auth: 'none',
      status: 302,
      summary: "Go to Google's sign-in (a browser navigation)",
      description:
        "Redirects to Google's consent screen (OpenID Connect code flow with PKCE, state and nonce), binding the flow to this browser with a short-lived HttpOnly cookie. Not configured or unreachable: redirects to `/console/sign-in?error=google_not_configured` or `provider_unavailable`.",
      tags: TAGS,
      handler: async () => redirect(await identity.googleLogin()),
    }),
    defineRoute({
      method: 'GET',
      path: '/auth/google/callback',
      auth: 'none',
      status: 302,
      summary: 'Where Google sends the browser back (a browser navigation)',
      description:
        "Always a redirect. Signed in: `/console/auth/callback#access_token=...&token_type=bearer&expires_at=...` (a linked identity, or a new workspace through sign-up itself: sign-up mode, registration switch, default plan, the per-address sign-up limits and the refusal of disposable addresses as `/auth/register` applies them). The address belongs to a password account: `/console/auth/callback#link_ticket=...` (see `/auth/link`). Refused: `/console/sign-in?error=<code>` with a code of the error table (`invalid_state`, `provider_sign_in_failed`, `email_not_verified`, `registration_closed`, `rate_limited`, `disposable_email`, `account_disabled`, `workspace_suspended`, `sso_required`, ...) or the provider's own (`access_denied`). The redirect URI to register at Google is `<base_url>/v1/auth/google/callback`.",
      tags: TAGS,
      query: ProviderCallbackQuery,
      handler: async ({ request, url, ip, requestId }) =>
        redirect(await identity.googleCallback(request, url.searchParams, { ip, requestId })),
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/link-info',
      auth: 'none',
      summary: 'The address and provider a link ticket names',
      description: 'An expired or forged ticket: 400 `link_ticket_invalid`, one message for both.',
      tags: TAGS,
      errors: ['link_ticket_invalid'],
      body: LinkAccountReq,
      response: LinkAccountInfoResp,
      handler: ({ body }) => identity.linkInfo(body.ticket),
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/link',
      idempotent: 'once',
      auth: 'none',
      summary: "Link a provider identity to an existing password account (the account's password proves it)",
      description:
        'The password is checked as `/auth/login` checks it (same rate limits; 401 `invalid_credentials`). Refused when the workspace enforces single sign-on (403 `sso_required`) or the account is deactivated (403 `account_disabled`); an identity already linked to another account is 409 `identity_linked_elsewhere`. Answers a session, recorded as made through the provider (`via` and the `auth.sign_in` audit row say `google`). An identity the account had at the same issuer is replaced (audit `identity.linked` names its `replaced_subject`).',
      tags: TAGS,
      errors: [
        'link_ticket_invalid',
        'account_disabled',
        'email_not_verified',
        'workspace_suspended',
        'sso_required',
        'identity_linked_elsewhere',
        'rate_limited',
      ],
      body: LinkAccountReq,
      response: TokenResp,
      handler: ({ body, ip, requestId }) => identity.link(body.ticket, body.password, { ip, requestId }),
    }),
  ]
}
