/**
 * The signed-in session. The token lives in memory and in `sessionStorage`, never `localStorage`:
 * it then survives a reload of the tab but not the tab itself, is not shared with other tabs, and
 * a script that ever ran on the origin cannot read it days later (docs/console.md). Before half the
 * token's life has passed it is swapped for a fresh one (`/auth/refresh`), until the server's cap.
 */
import { signal } from '@preact/signals'
import { api } from './client'
import type { SessionResp, TokenResp, User } from './types'

interface Stored {
  token: string
  expiresAt: string
}

const KEY = 'engram.session'

function load(): Stored | null {
  try {
    const s = JSON.parse(sessionStorage.getItem(KEY) ?? 'null') as Stored | null
    return s && Date.parse(s.expiresAt) > Date.now() ? s : null
  } catch {
    return null
  }
}

/** The current session, or null when signed out. */
export const session = signal<Stored | null>(load())
/** Who is signed in (loaded after sign-in and on start). */
export const me = signal<User | null>(null)

let timer: ReturnType<typeof setTimeout> | undefined

/** Keeps a session the API issued (sign-in, sign-up, accepted invite, refresh). */
export function adopt(resp: { access_token: string; expires_at: string | null }): void {
  if (!resp.access_token || !resp.expires_at) return
  session.value = { token: resp.access_token, expiresAt: resp.expires_at }
  sessionStorage.setItem(KEY, JSON.stringify(session.value))
  scheduleRefresh()
}

/** Forgets the session here (the token is stateless: signing out is dropping it). */
export function endSession(): void {
  clearTimeout(timer)
  session.value = null
  me.value = null
  sessionStorage.removeItem(KEY)
}

/** Signs in with the OAuth2 password form; loads the user. */
export async function signIn(email: string, password: string, remember: boolean): Promise<User> {
  const resp = await api<TokenResp>('/auth/login', {
    form: { username: email, password, remember_me: remember ? 'true' : 'false' },
    anonymous: true,
  })
  adopt(resp)
  return loadMe()
}

/** Loads (or reloads) the signed-in user. */
export async function loadMe(): Promise<User> {
  me.value = await api<User>('/auth/me')
  return me.value
}

/** Swaps the token once past half its life; the server keeps it (`refreshed: false`) before that. */
async function refresh(): Promise<void> {
  try {
    const resp = await api<SessionResp>('/auth/refresh', { method: 'POST' })
    adopt(resp)
  } catch {
    // A 401 already ended the session; anything else is tried again at the next half-life.
    if (session.value) scheduleRefresh()
  }
}

function scheduleRefresh(): void {
  clearTimeout(timer)
  const s = session.value
  if (!s) return
  const left = Date.parse(s.expiresAt) - Date.now()
  // Past half the remaining life is past half the whole life once the token has been used a while;
  // the server says whether it swapped, and this runs again either way. Timers hold 24.8 days at most.
  const wait = Math.min(Math.max(left / 2, 5_000), 2 ** 31 - 1)
  timer = setTimeout(refresh, wait)
}

if (session.value) scheduleRefresh()
