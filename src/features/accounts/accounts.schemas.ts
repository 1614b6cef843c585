import { Type } from '@sinclair/typebox'
import { validationFailed } from '../../platform/errors/errors'
import { namedObject } from '../../platform/http/schema'
import { NameString } from '../../platform/http/text-formats'
import { ApiKeyResp } from '../keys/keys.schemas'
import { isThrowawayAddress } from './accounts.disposable'

/** An email address as accepted on the wire; it is trimmed and lower-cased before use. */
export const Email = Type.String({ format: 'email', maxLength: 254, description: 'Email address.' })

/** A new password. */
export const Password = Type.String({ minLength: 8, maxLength: 128, description: '8 to 128 characters.' })

/** A workspace or display name: 1 to 120 characters, trimmed; blank after trimming is a 422. */
export const Name = NameString({ minLength: 1, maxLength: 120 })

/** An emailed secret presented back (verification, reset, invite); garbage is a 400, not a 500. */
export const LinkToken = Type.String({ minLength: 1, maxLength: 256, description: 'Token from the link.' })

export const RegisterReq = namedObject('RegisterReq', {
  email: Email,
  password: Password,
  workspace_name: Name,
  name: { ...Name, description: 'Display name.' },
})

/** Where a verification or reset link went; the same for every address, so it reveals no account. */
export const LinkDelivery = Type.Union(
  [Type.Literal('email'), Type.Literal('response'), Type.Literal('server_log')],
  {
    description:
      '`email`: mailed (ENGRAM_EMAIL is an smtp URL). `server_log`: no mail server (ENGRAM_EMAIL=log, the default), so the link was written to the server log for the operator to pass on. `response`: the operator set ENGRAM_EMAIL=disabled, so the link is in this body, whoever asked. Depends on the configuration only.',
  },
)

export const TokenResp = namedObject('TokenResp', {
  access_token: Type.String({ description: 'Session token; empty while the address is unverified.' }),
  token_type: Type.Literal('bearer'),
  expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  email_verified: Type.Boolean(),
  verify_link: Type.Optional(
    Type.String({
      description: 'Only when the email backend is disabled (`link_delivery: response`).',
    }),
  ),
  link_delivery: Type.Optional(LinkDelivery),
  sso_required: Type.Optional(
    Type.Boolean({
      description:
        'Only `true`, on an invitation accepted in a workspace that enforces single sign-on: the member exists but no session is answered (`access_token` is empty); sign in with SSO and the invited address.',
    }),
  ),
})

export const SessionResp = namedObject('SessionResp', {
  access_token: Type.String(),
  token_type: Type.Literal('bearer'),
  expires_at: Type.String({ format: 'date-time' }),
  email_verified: Type.Boolean(),
  refreshed: Type.Boolean({ description: 'False when the presented token was kept (not yet half-used).' }),
  session_class: Type.Union([Type.Literal('normal'), Type.Literal('remember')]),
})

export const UserResp = namedObject('UserResp', {
  id: Type.String(),
  email: Type.String(),
  name: Type.String(),
  workspace_id: Type.String(),
  workspace_name: Type.String(),
  role: Type.Union([Type.Literal('admin'), Type.Literal('member')]),
  email_verified: Type.Boolean(),
})

/** `/auth/me` and `/auth/setup` for an API key: a key has no user, so it describes itself. */
export const ApiKeyMeResp = namedObject('ApiKeyMeResp', {
  kind: Type.Literal('api_key'),
  key: ApiKeyResp,
  workspace_id: Type.String(),
  workspace_name: Type.String(),
  role: Type.Union([Type.Literal('admin'), Type.Literal('member')], {
    description: 'admin when the key holds the admin scope.',
  }),
})

/** Who the caller is: the signed-in user, or the API key presented. */
export const MeResp = Type.Union([UserResp, ApiKeyMeResp], { $id: 'MeResp' })

export const LinkResp = namedObject('LinkResp', {
  status: Type.String(),
  invite_link: Type.Optional(Type.String({ description: 'Only with `link_delivery: response`.' })),
  reset_link: Type.Optional(Type.String({ description: 'Only with `link_delivery: response`.' })),
  verify_link: Type.Optional(Type.String({ description: 'Only with `link_delivery: response`.' })),
  link_delivery: Type.Optional(LinkDelivery),
})

export const EmailReq = namedObject('EmailReq', { email: Email })

export const ResetPasswordReq = namedObject('ResetPasswordReq', { token: LinkToken, password: Password })

export const VerifyQuery = Type.Object({ token: LinkToken })

/** The OAuth2 password form, plus `remember_me`; the optional OAuth2 fields are accepted and ignored. */
export const LoginForm = namedObject('LoginForm', {
  username: Type.String({ minLength: 1, maxLength: 254, description: 'Email address.' }),
  password: Type.String({ minLength: 1, maxLength: 128 }),
  remember_me: Type.Optional(
    Type.String({ pattern: '^(true|false|on|off|1|0|yes|no|)$', description: 'true for a long session.' }),
  ),
  grant_type: Type.Optional(Type.String({ pattern: '^password$' })),
  scope: Type.Optional(Type.String({ maxLength: 1000 })),
  client_id: Type.Optional(Type.String({ maxLength: 1000 })),
  client_secret: Type.Optional(Type.String({ maxLength: 1000 })),
  recovery_code: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 64,
      description:
        'Break-glass: an unused recovery code of a workspace that enforces single sign-on, which lets an admin sign in with the password once.',
    }),
  ),
})

export const WorkspaceSetupReq = namedObject('WorkspaceSetupReq', {
  workspace_name: Name,
  name: { ...Name, description: 'Display name.' },
})

export const ChangePasswordReq = namedObject('ChangePasswordReq', {
  current_password: Type.String({ minLength: 1, maxLength: 128, description: 'The password in use now.' }),
  new_password: Password,
})

export const ProfileUpdateReq = namedObject('ProfileUpdateReq', {
  name: { ...Name, description: 'Display name.' },
})

export const AuthConfigResp = namedObject('AuthConfigResp', {
  signup_mode: Type.Union([Type.Literal('open'), Type.Literal('invite')]),
  registration_enabled: Type.Boolean({ description: 'Whether /auth/register accepts sign-ups.' }),
  first_run: Type.Boolean({ description: 'True while the install has no workspace yet.' }),
  resend_cooldown_seconds: Type.Integer({
    description: 'Wait between two verification emails to one address.',
  }),
  billing_enabled: Type.Boolean(),
  default_plan: Type.String(),
  email_enabled: Type.Boolean({ description: 'True when a mail server is configured and links are mailed.' }),
  link_delivery: {
    ...LinkDelivery,
    description:
      'Where verification, password-reset and invitation links go on this server: `email` (mailed), `server_log` (written to the server log for the operator to pass on; the default without a mail server) or `response` (answered to whoever asks: email explicitly disabled).',
  },
  base_url_configured: Type.Boolean({
    description:
      "Whether the operator set the public address (`server.base_url`, ENGRAM_BASE_URL). Without it, emailed and invitation links start with `http://localhost:<port>`, which opens only on the server's own machine. Links never come from a request's Host header.",
  }),
  link_base_url: Type.String({
    description:
      'What every emailed and invitation link starts with: the configured base URL, or `http://localhost:<port>`.',
  }),
  google_enabled: Type.Boolean({ description: 'Whether social sign-in is configured.' }),
  sso_enabled: Type.Boolean(),
})

export const AccessRequestResp = namedObject('AccessRequestResp', { status: Type.Literal('pending') })

/** Trims and lower-cases an address; the stored form, and the form duplicates are checked in. */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase()
}

/** Trims a workspace or display name; blank after trimming is a 422 on `field`, like a missing one. */
export function requireName(value: string, field: string): string {
  const v = value.trim()
  if (v.length === 0) {
    throw validationFailed([
      { loc: ['body', field], msg: 'String should have at least 1 character', type: 'string_too_short' },
    ])
  }
  return v
}

/** Whether the address is at a disposable (throwaway) domain, from a maintained list package. */
export function isDisposableAddress(email: string): boolean {
  return isThrowawayAddress(email)
}
