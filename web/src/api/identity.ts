/**
 * Enterprise identity: signing in with Google or the workspace's single sign-on, linking a social
 * identity to an existing password account, and the admin's SSO settings (`/v1/enterprise/sso`).
 * The provider hand-offs are browser navigations, not calls: their addresses are made here so that
 * no page names an API path.
 */
import { ok, http as typedHttp, publicHttp as typedPublicHttp } from './client'
import type { TokenResp } from './types'

// TEMPORARY until the identity and SSO routes land in /openapi.json: the shapes the brief gives,
// and untyped clients. Replaced by the generated types (`npm run console:types`).
type Call = (path: string, init?: object) => Promise<{ data?: never }>
type Loose = { GET: Call; POST: Call; PUT: Call; DELETE: Call }
const http = typedHttp as unknown as Loose
const publicHttp = typedPublicHttp as unknown as Loose
export interface SsoStartResp {
  authorization_url: string
}
export interface LinkInfo {
  email: string
  provider: string
}
export interface SsoSettings {
  configured: boolean
  issuer?: string
  client_id?: string
  client_secret_set?: boolean
  domains?: string[]
  enforce?: boolean
  default_role?: 'admin' | 'member'
  seat_cap?: number | null
  redirect_uri?: string
  recovery_codes_left?: number
  updated_at?: string
  recovery_codes?: string[]
}
export interface SsoSaveReq {
  issuer: string
  client_id: string
  client_secret?: string
  domains: string[]
  enforce?: boolean
  default_role?: 'admin' | 'member'
  seat_cap?: number | null
}
export interface SsoTestResp {
  ok: boolean
  checks: { name: string; ok: boolean; detail: string }[]
}

/** Where "Sign in with Google" goes: the server redirects on to Google's consent screen. */
export function googleLoginUrl(): string {
  return '/v1/auth/google/login'
}

/** Asks where a work address signs in; answers the workspace's provider's page (404: no SSO). */
export function ssoStart(email: string): Promise<SsoStartResp> {
  return ok<SsoStartResp>(publicHttp.POST('/v1/auth/sso/start', { body: { email } }))
}

/** The address and provider a link ticket (from a social sign-in) names. */
export function linkInfo(ticket: string, signal?: AbortSignal): Promise<LinkInfo> {
  return ok<LinkInfo>(publicHttp.POST('/v1/auth/link-info', { body: { ticket }, signal }))
}

/** Links the ticket's identity to the password account of its address; answers a session. */
export function linkAccount(ticket: string, password: string): Promise<TokenResp> {
  return ok<TokenResp>(publicHttp.POST('/v1/auth/link', { body: { ticket, password } }))
}

/** The workspace's SSO settings (`configured: false` before any); the secret never comes back. */
export function getSso(signal?: AbortSignal): Promise<SsoSettings> {
  return ok<SsoSettings>(http.GET('/v1/enterprise/sso', { signal }))
}

/** Saves the SSO settings; turning enforcement on answers the recovery codes, this once. */
export function saveSso(body: SsoSaveReq): Promise<SsoSettings> {
  return ok<SsoSettings>(http.PUT('/v1/enterprise/sso', { body }))
}

/** Removes the SSO settings: members sign in with their passwords again. */
export async function deleteSso(): Promise<void> {
  await http.DELETE('/v1/enterprise/sso')
}

/** Checks the settings against the provider (discovery, keys, the client); one result a check. */
export function testSso(): Promise<SsoTestResp> {
  return ok<SsoTestResp>(http.POST('/v1/enterprise/sso/test'))
}
