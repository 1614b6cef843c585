import type { Config } from '../../platform/config/config.load'
import { fail } from '../../platform/http/errors'
import { defineRoute, type Principal, type RouteDef } from '../../platform/http/route'
import {
  AccessRequestResp,
  AuthConfigResp,
  EmailReq,
  LinkResp,
  LoginForm,
  RegisterReq,
  ResetPasswordReq,
  SessionResp,
  TokenResp,
  UserResp,
  VerifyQuery,
  WorkspaceSetupReq,
} from './accounts.schemas'
import type { AccountsService } from './accounts.service'
import { bearerToken, type SessionService } from './accounts.sessions'

const TAGS = ['auth']

// Routes whose answer carries a secret (a session token, or a link while email is disabled) set
// `idempotent: false`: an Idempotency-Key replay would mean storing that secret in the clear.

/** The user id of a session principal; API keys have no user, so user routes refuse them. */
function sessionUser(p: Principal): string {
  if (p.kind !== 'session' || !p.userId) throw fail('session_required')
  return p.userId
}

/** `/auth/*` password sign-up and sign-in routes (spec, Accounts and sign-in). */
export function accountsRoutes(
  accounts: AccountsService,
  sessions: SessionService,
  config: Config,
): RouteDef[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/auth/register',
      idempotent: false,
      auth: 'none',
      summary: 'Create a workspace and its first admin',
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
      idempotent: false,
      auth: 'none',
      summary: 'Send the verification link again (per-address cooldown)',
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
      idempotent: false,
      auth: 'none',
      summary: 'Send a password reset link',
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
      idempotent: false,
      auth: 'none',
      summary: 'Sign in with the OAuth2 password form',
      tags: TAGS,
      errors: ['rate_limited'],
      bodyKind: 'form',
      body: LoginForm,
      response: TokenResp,
      handler: ({ body, ip, requestId }) =>
        accounts.login(body.username, body.password, isTrue(body.remember_me), { ip, requestId }),
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/refresh',
      idempotent: false,
      auth: 'bearer',
      summary: 'Swap a session token past half its life for a fresh one of the same class',
      tags: TAGS,
      response: SessionResp,
      handler: ({ principal, request }) => {
        sessionUser(principal)
        return sessions.refresh(bearerToken(request))
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/auth/me',
      auth: 'bearer',
      summary: 'The signed-in user',
      tags: TAGS,
      response: UserResp,
      handler: ({ principal }) => accounts.profile(sessionUser(principal)),
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/setup',
      auth: 'admin',
      scope: 'admin',
      summary: "Rename the caller's workspace and display name",
      tags: TAGS,
      body: WorkspaceSetupReq,
      response: UserResp,
      handler: ({ principal, body }) =>
        accounts.setup(sessionUser(principal), body.workspace_name, body.name),
    }),
    defineRoute({
      method: 'GET',
      path: '/auth/config',
      auth: 'none',
      summary: 'Sign-up mode and sign-in options of this server',
      tags: TAGS,
      response: AuthConfigResp,
      handler: () => ({
        signup_mode: config.accounts.signup_mode,
        registration_enabled: config.accounts.signup_mode === 'open' || config.accounts.registration === 'on',
        billing_enabled: config.billing.mode !== 'off',
        default_plan: config.accounts.default_plan,
        email_enabled: config.email.transport !== 'disabled',
        google_enabled: false,
        sso_enabled: false,
      }),
    }),
  ]
}

function isTrue(v: string | undefined): boolean {
  return v !== undefined && ['true', 'on', '1', 'yes'].includes(v)
}
