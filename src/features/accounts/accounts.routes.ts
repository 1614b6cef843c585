import { actorOf, type Principal } from '../../platform/auth/principal'
import { baseUrl } from '../../platform/config/config.load'
import { fail } from '../../platform/errors/errors'
import { defineRoute, type RouteDef } from '../../platform/http/route'
import type { KeysService } from '../keys/keys.service'
import {
  AccessRequestResp,
  AuthConfigResp,
  ChangePasswordReq,
  EmailReq,
  LinkResp,
  LoginForm,
  MeResp,
  ProfileUpdateReq,
  RegisterReq,
  ResetPasswordReq,
  SessionResp,
  TokenResp,
  UserResp,
  VerifyQuery,
  WorkspaceSetupReq,
} from './accounts.schemas'
import type { AccountsConfig, AccountsService } from './accounts.service'
import { bearerToken, type SessionService } from './accounts.sessions'

const TAGS = ['auth']

// Where a verification or reset link goes is the operator's choice (ENGRAM_EMAIL), never the
// caller's: a loopback socket proves nothing, since a reverse proxy on the same host makes every
// request arrive over loopback. Only `disabled`, the spec's behaviour, answers the link (docs/accounts.md).
const LINK_DELIVERY =
  "Where the link goes depends on the server's email setting only, and `link_delivery` says which: `email` (mailed), `server_log` (the default without a mail server: written to the server log for the operator to pass on), or `response` (email explicitly `disabled`: the link is in this body, for any caller)."

// Routes whose answer carries a secret (a session token, or a link while email is disabled) set
// `idempotent: 'once'`: an Idempotency-Key replay would mean storing that secret in the clear, so a
// key runs the request once and a reuse is refused (409 `idempotency_key_reused`).

/** The user id of a session principal; API keys have no user, so user routes refuse them. */
function sessionUser(p: Principal): string {
  if (p.kind !== 'session' || !p.userId) throw fail('session_required')
  return p.userId
}

/** `/auth/*` password sign-up and sign-in routes (spec, Accounts and sign-in). */
export function accountsRoutes(
  accounts: AccountsService,
  sessions: SessionService,
  keys: KeysService,
  config: AccountsConfig,
): RouteDef[] {
  const keyProfile = async (p: Principal) => {
    const ws = await accounts.workspaceName(p.workspaceId)
    return {
      kind: 'api_key' as const,
      key: await keys.get(p.workspaceId, p.keyId!),
      workspace_id: p.workspaceId,
      workspace_name: ws,
      role: p.role,
    }
  }
  return [
    defineRoute({
      method: 'POST',
      path: '/auth/register',
      idempotent: 'once',
      auth: 'none',
      summary: 'Create a workspace and its first admin',
      description: `Invite mode: open while the registration switch allows (\`first\`, the default: until the first workspace exists), else 403 \`registration_closed\`. Open mode: the admin is unverified until the emailed link is used. ${LINK_DELIVERY}`,
      tags: TAGS,
      errors: ['rate_limited'],
      body: RegisterReq,
      response: TokenResp,
      handler: ({ body, ip, requestId }) => accounts.register(body, { ip, requestId }),
    }),
    defineRoute({
      method: 'GET',
      path: '/auth/verify-email',
      auth: 'none',
      summary: 'Use an emailed verification link (single-use)',
      tags: TAGS,
      query: VerifyQuery,
      response: LinkResp,
      handler: ({ query }) => accounts.verifyEmail(query.token),
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/resend-verification',
      idempotent: 'once',
      auth: 'none',
      summary: 'Send the verification link again (per-address cooldown)',
      description: LINK_DELIVERY,
      tags: TAGS,
      errors: ['rate_limited'],
      body: EmailReq,
      response: LinkResp,
      handler: ({ body, ip, requestId }) => accounts.resendVerification(body.email, { ip, requestId }),
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/request-access',
      auth: 'none',
      summary: 'Ask for access while registration is invite-only',
      tags: TAGS,
      errors: ['rate_limited'],
      body: EmailReq,
      response: AccessRequestResp,
      handler: ({ body, ip, requestId }) => accounts.requestAccess(body.email, { ip, requestId }),
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/forgot-password',
      idempotent: 'once',
      auth: 'none',
      summary: 'Send a password reset link',
      description: LINK_DELIVERY,
      tags: TAGS,
      errors: ['rate_limited'],
      body: EmailReq,
      response: LinkResp,
      handler: ({ body, ip, requestId }) => accounts.forgotPassword(body.email, { ip, requestId }),
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/reset-password',
      auth: 'none',
      summary: 'Set a new password with a reset grant (ends older sessions)',
      tags: TAGS,
      body: ResetPasswordReq,
      response: LinkResp,
      handler: ({ body }) => accounts.resetPassword(body.token, body.password),
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/login',
      idempotent: 'once',
      auth: 'none',
      summary: 'Sign in with the OAuth2 password form',
      description:
        'A workspace that enforces single sign-on refuses a password with 403 `sso_required` (after checking it), also one just reset; an admin of it may add `recovery_code`, one of the codes shown when enforcement was turned on, to sign in once (403 `invalid_recovery_code` when unknown or spent).',
      tags: TAGS,
      errors: ['rate_limited', 'sso_required', 'invalid_recovery_code'],
      bodyKind: 'form',
      body: LoginForm,
      response: TokenResp,
      handler: ({ body, ip, requestId }) =>
        accounts.login(
          body.username,
          body.password,
          isTrue(body.remember_me),
          { ip, requestId },
          body.recovery_code,
        ),
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/refresh',
      idempotent: 'once',
      auth: 'bearer',
      summary: 'Swap a session token past half its life for a fresh one of the same class',
      tags: TAGS,
      response: SessionResp,
      errors: ['session_required'],
      handler: ({ principal, request }) => {
        sessionUser(principal)
        return sessions.refresh(bearerToken(request))
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/auth/me',
      auth: 'bearer',
      // A key's own profile: its bases and nothing about others.
      boundKeys: 'served',
      summary: 'Who the credential is: the signed-in user, or the API key and its workspace',
      description:
        'A session answers UserResp. An API key has no user: it answers `kind: "api_key"`, the key as listed (never its secret), its workspace, and the role it acts with.',
      tags: TAGS,
      response: MeResp,
      handler: ({ principal }) =>
        principal.kind === 'api_key' ? keyProfile(principal) : accounts.profile(sessionUser(principal)),
    }),
    defineRoute({
      method: 'PATCH',
      path: '/auth/me',
      auth: 'bearer',
      summary: 'Change your own display name',
      description:
        "Any member, for themself; an API key has no user (403 `session_required`). The workspace name is an admin's, through `POST /auth/setup`.",
      tags: TAGS,
      errors: ['session_required'],
      body: ProfileUpdateReq,
      response: UserResp,
      handler: ({ principal, body }) => accounts.rename(sessionUser(principal), body.name),
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/change-password',
      idempotent: 'once',
      auth: 'bearer',
      summary: 'Change your password (ends your other sessions)',
      description:
        'Needs the current password (else 403 `wrong_password`; guesses count against the sign-in rate limit). Every other session of the user ends, as after a reset; the answer is a fresh session of the same class for the caller. An API key has no user (403 `session_required`).',
      tags: TAGS,
      errors: ['wrong_password', 'session_required', 'rate_limited'],
      body: ChangePasswordReq,
      response: TokenResp,
      handler: ({ principal, body, request, ip, requestId }) => {
        const userId = sessionUser(principal)
        const token = bearerToken(request)
        const cls = sessions.sessionClass(token)
        // The renewed session says how the user signed in, as the one it replaces did (SSO enforcement reads it).
        const via = sessions.signedInVia(token)
        return accounts.changePassword(
          userId,
          body.current_password,
          body.new_password,
          cls,
          {
            ip,
            requestId,
          },
          via,
        )
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/setup',
      auth: 'admin',
      scope: 'admin',
      summary: "Rename the caller's workspace and display name",
      description:
        'With an admin-scope API key the workspace is renamed and the key described as by /auth/me; `name` (a display name) is not applied, as a key has no user.',
      tags: TAGS,
      body: WorkspaceSetupReq,
      response: MeResp,
      handler: async ({ principal, body, ip, requestId }) => {
        const actor = actorOf(principal, ip, requestId)
        if (principal.kind !== 'api_key')
          return accounts.setup(sessionUser(principal), body.workspace_name, body.name, actor)
        await accounts.renameWorkspace(principal.workspaceId, body.workspace_name, actor)
        return keyProfile(principal)
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/auth/config',
      auth: 'none',
      summary: 'Sign-up mode and sign-in options of this server',
      tags: TAGS,
      response: AuthConfigResp,
      handler: async () => ({
        signup_mode: config.accounts.signup_mode,
        registration_enabled: await accounts.registrationOpen(),
        first_run: await accounts.firstRun(),
        resend_cooldown_seconds: config.accounts.resend_cooldown_seconds,
        billing_enabled: config.billing.mode !== 'off',
        default_plan: config.accounts.default_plan,
        email_enabled: accounts.linkDelivery() === 'email',
        link_delivery: accounts.linkDelivery(),
        base_url_configured: !!config.server.base_url,
        link_base_url: baseUrl(config),
        // Google sign-in (the identity feature) is on when its client id and secret are both set.
        google_enabled: !!(config.google.client_id && config.google.client_secret),
        // Some workspace signs in through its own provider: the sign-in page asks for a work address.
        sso_enabled: await accounts.ssoAvailable(),
      }),
    }),
  ]
}

function isTrue(v: string | undefined): boolean {
  return v !== undefined && ['true', 'on', '1', 'yes'].includes(v)
}
