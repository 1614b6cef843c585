/**
 * Enterprise identity: signing in with Google or the workspace's single sign-on, linking a social
 * identity to an existing password account, and the admin's SSO settings (`/v1/enterprise/sso`).
 * The provider hand-offs are browser navigations, not calls: their addresses are made here so that
 * no page names an API path.
 */
import { http, ok, publicHttp } from './client'
import type { LinkInfo, SsoCheck, SsoSettings, SsoSettingsReq, SsoStart, TokenResp } from './types'

/** Where "Sign in with Google" goes: the server redirects on to Google's consent screen. */
export function googleLoginUrl(): string {
  return '/v1/auth/google/login'
}

/** Asks where a work address signs in; answers the workspace's provider's page (404: no SSO). */
export function ssoStart(email: string): Promise<SsoStart> {
  return ok(publicHttp.POST('/v1/auth/sso/start', { body: { email } }))
}

/** The address and provider a link ticket (from a social sign-in) names. */
export function linkInfo(ticket: string, signal?: AbortSignal): Promise<LinkInfo> {
  return ok(publicHttp.POST('/v1/auth/link-info', { body: { ticket }, signal }))
}

/** Links the ticket's identity to the password account of its address; answers a session. */
export function linkAccount(ticket: string, password: string): Promise<TokenResp> {
  return ok(publicHttp.POST('/v1/auth/link', { body: { ticket, password } }))
}

/** The workspace's SSO settings (`configured: false` before any); the secret never comes back. */
export function getSso(signal?: AbortSignal): Promise<SsoSettings> {
  return ok(http.GET('/v1/enterprise/sso', { signal }))
}

/** Saves the SSO settings; turning enforcement on answers the recovery codes, this once. */
export function saveSso(body: SsoSettingsReq): Promise<SsoSettings> {
  return ok(http.PUT('/v1/enterprise/sso', { body }))
}

/** Removes the SSO settings: members sign in with their passwords again. */
export async function deleteSso(): Promise<void> {
  await http.DELETE('/v1/enterprise/sso')
}

/** Checks the settings against the provider (discovery, keys, the client); one result a check. */
export function testSso(): Promise<SsoCheck> {
  return ok(http.POST('/v1/enterprise/sso/test'))
}

/** New recovery codes, shown once; every earlier code stops working. */
export async function newRecoveryCodes(): Promise<string[]> {
  return (await ok(http.POST('/v1/enterprise/sso/recovery-codes'))).recovery_codes
}
