/**
 * Signing in and up, the emailed links, the signed-in user's own account (`/v1/auth/...`), and
 * keeping the session's token fresh: before half of its remaining life has passed it is swapped
 * for a fresh one (`/auth/refresh`), until the server's cap.
 */
import { effect } from '@preact/signals'
import { http, ok, publicHttp } from './client'
import { adopt, me, type Stored, session } from './session'
import type { AuthConfig, InviteInfo, LinkResp, Me, TokenResp, User } from './types'

/**
 * Signs in with the OAuth2 password form; loads the user. `recoveryCode` is an admin's one-time
 * break-glass code, for a workspace that enforces single sign-on.
 */
export async function signIn(
  email: string,
  password: string,
  remember: boolean,
  opts: { recoveryCode?: string } = {},
): Promise<User> {
  const body = { username: email, password, remember_me: remember ? 'true' : 'false' }
  const resp = await ok(
    publicHttp.POST('/v1/auth/login', {
      body: opts.recoveryCode ? { ...body, recovery_code: opts.recoveryCode } : body,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    }),
  )
  adopt(resp)
  return loadMe()
}

/** Loads (or reloads) the signed-in user. */
export async function loadMe(): Promise<User> {
  me.value = asUser(await ok(http.GET('/v1/auth/me')))
  return me.value
}

/** The console holds a session, never an API key: what `/auth/me` and its siblings answer is a user. */
function asUser(m: Me): User {
  return m as User
}

/** The server's sign-up mode and options. */
export function getAuthConfig(): Promise<AuthConfig> {
  return ok(publicHttp.GET('/v1/auth/config'))
}

/** Creates a workspace and its admin; signed in at once, or a link to confirm the address first. */
export function register(body: {
  workspace_name: string
  name: string
  email: string
  password: string
}): Promise<TokenResp> {
  return ok(publicHttp.POST('/v1/auth/register', { body }))
}

/** Spends an emailed verification link's token. */
export function verifyEmail(token: string, signal?: AbortSignal): Promise<LinkResp> {
  return ok(publicHttp.GET('/v1/auth/verify-email', { params: { query: { token } }, signal }))
}

/** Sends the verification link again (no sooner than the server's cooldown). */
export function resendVerification(email: string): Promise<LinkResp> {
  return ok(publicHttp.POST('/v1/auth/resend-verification', { body: { email } }))
}

/** Leaves an address for the operator while sign-up is by invitation only. */
export async function requestAccess(email: string): Promise<void> {
  await publicHttp.POST('/v1/auth/request-access', { body: { email } })
}

/** Asks for a password reset link (always `sent`, whether or not the address has an account). */
export function forgotPassword(email: string): Promise<LinkResp> {
  return ok(publicHttp.POST('/v1/auth/forgot-password', { body: { email } }))
}

/** Sets a new password with an emailed reset link's token. */
export async function resetPassword(token: string, password: string): Promise<void> {
  await publicHttp.POST('/v1/auth/reset-password', { body: { token, password } })
}

/** The workspace and address an invitation is for. */
export function inviteInfo(token: string, signal?: AbortSignal): Promise<InviteInfo> {
  return ok(publicHttp.POST('/v1/auth/invite-info', { body: { token }, signal }))
}

/**
 * Creates the invited account; answers its session, or, where the workspace enforces single
 * sign-on (no password sent), an empty token and `sso_required: true`.
 */
export function acceptInvite(body: { token: string; name: string; password?: string }): Promise<TokenResp> {
  return ok(publicHttp.POST('/v1/auth/accept-invite', { body }))
}

/** Changes the signed-in user's display name. */
export async function updateProfile(name: string): Promise<User> {
  return asUser(await ok(http.PATCH('/v1/auth/me', { body: { name } })))
}

/** Renames the workspace (an admin's); the display name is sent too, as the route sets both. */
export async function setupWorkspace(body: { workspace_name: string; name: string }): Promise<User> {
  return asUser(await ok(http.POST('/v1/auth/setup', { body })))
}

/** Changes the password: other sessions end; the answer is this one's new token. */
export function changePassword(body: { current_password: string; new_password: string }): Promise<TokenResp> {
  return ok(http.POST('/v1/auth/change-password', { body }))
}

let timer: ReturnType<typeof setTimeout> | undefined

/** Swaps the token once past half its life; the server keeps it (`refreshed: false`) before that. */
async function refresh(): Promise<void> {
  try {
    adopt(await ok(http.POST('/v1/auth/refresh')))
  } catch {
    // A 401 already ended the session; anything else is tried again at the next half-life.
    schedule(session.value)
  }
}

function schedule(s: Stored | null): void {
  clearTimeout(timer)
  if (!s) return
  const left = Date.parse(s.expiresAt) - Date.now()
  // Past half the remaining life is past half the whole life once the token has been used a while;
  // the server says whether it swapped, and this runs again either way. Timers hold 24.8 days at most.
  const wait = Math.min(Math.max(left / 2, 5_000), 2 ** 31 - 1)
  timer = setTimeout(refresh, wait)
}

// Every new session (sign-in, a refresh, a reload of the tab) is scheduled; signing out stops it.
effect(() => schedule(session.value))
