import { Type } from '@sinclair/typebox'
import { namedObject } from '../../platform/http/schema'
import { Email } from '../accounts/accounts.schemas'

const Role = Type.Union([Type.Literal('member'), Type.Literal('admin')], {
  description: 'The role of a member created on their first SSO sign-in.',
})

const SeatCap = Type.Union([Type.Integer({ minimum: 1, maximum: 1_000_000 }), Type.Null()], {
  description:
    'Active members the workspace may hold before SSO stops adding new ones (existing members still sign in); null for no cap. At least the current number of active members.',
})

const RecoveryCodes = Type.Array(Type.String(), {
  description:
    'One-time break-glass codes, shown this once and stored only hashed: each lets one admin sign in with their password once while SSO is enforced (POST /auth/login with `recovery_code`).',
})

export const SsoSettingsReq = namedObject('SsoSettingsReq', {
  issuer: Type.String({
    minLength: 1,
    maxLength: 2048,
    description:
      "The OpenID provider's issuer identifier (discovery is read from `<issuer>/.well-known/openid-configuration`). https://, or http:// on a loopback address.",
  }),
  client_id: Type.String({ minLength: 1, maxLength: 255 }),
  client_secret: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 4096,
      description: 'Write-only, stored encrypted. Required the first time; left out, the stored one is kept.',
    }),
  ),
  domains: Type.Array(Type.String({ minLength: 1, maxLength: 255 }), {
    minItems: 1,
    maxItems: 100,
    description:
      'Email domains whose addresses sign in here. A domain belongs to one workspace on the server; public and throwaway mail domains are refused.',
  }),
  enforce: Type.Optional(
    Type.Boolean({
      description:
        'Refuse password sign-in (`sso_required`) and end password sessions. Turning it on answers new recovery codes. Default false.',
    }),
  ),
  default_role: Type.Optional(Role),
  seat_cap: Type.Optional(SeatCap),
})

export const SsoSettingsResp = namedObject('SsoSettingsResp', {
  configured: Type.Boolean({
    description: 'False when the workspace has no SSO; the other fields but `redirect_uri` are then absent.',
  }),
  issuer: Type.Optional(Type.String()),
  client_id: Type.Optional(Type.String()),
  client_secret_set: Type.Optional(Type.Boolean({ description: 'The secret itself is never returned.' })),
  domains: Type.Optional(Type.Array(Type.String())),
  enforce: Type.Optional(Type.Boolean()),
  default_role: Type.Optional(Role),
  seat_cap: Type.Optional(SeatCap),
  redirect_uri: Type.String({
    description:
      'The redirect URI to register at the provider (from ENGRAM_BASE_URL), also before any set-up is saved.',
  }),
  recovery_codes_left: Type.Optional(Type.Integer({ minimum: 0, description: 'Unused recovery codes.' })),
  updated_at: Type.Optional(Type.String({ format: 'date-time' })),
  recovery_codes: Type.Optional(RecoveryCodes),
})

export const SsoCheckResp = namedObject('SsoCheckResp', {
  ok: Type.Boolean({ description: 'True when every check passed.' }),
  checks: Type.Array(
    Type.Object({
      name: Type.Union([Type.Literal('discovery'), Type.Literal('jwks'), Type.Literal('token_endpoint')]),
      ok: Type.Boolean(),
      detail: Type.String({ description: 'What was found, or exactly what failed.' }),
    }),
  ),
})

export const RecoveryCodesResp = namedObject('RecoveryCodesResp', {
  recovery_codes: RecoveryCodes,
})

export const SsoStartReq = namedObject('SsoStartReq', { email: Email })

export const SsoStartResp = namedObject('SsoStartResp', {
  authorization_url: Type.String({ description: "The provider's sign-in page; send the browser there." }),
})

/** The provider's redirect back; anything wrong with it redirects to the sign-in page rather than answering JSON. */
export const SsoCallbackQuery = Type.Object(
  {
    code: Type.Optional(Type.String()),
    state: Type.Optional(Type.String()),
    error: Type.Optional(Type.String()),
  },
  // Providers add parameters of their own (iss, session_state, scope); they are passed on as they came.
  { additionalProperties: true },
)
