/**
 * The signed-in session. The token lives in memory and in `sessionStorage`, never `localStorage`:
 * it then survives a reload of the tab but not the tab itself, is not shared with other tabs, and
 * a script that ever ran on the origin cannot read it days later (docs/console.md).
 *
 * This file only holds the session; it calls nothing. Signing in and keeping the token fresh are
 * `auth.ts`'s, which calls the API through `client.ts`, which reads the token from here: the
 * imports go one way.
 */
import { signal } from '@preact/signals'
import type { User } from './types'

/** A session token and when it expires. */
export interface Stored {
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

/** Keeps a session the API issued (sign-in, sign-up, accepted invite, refresh). */
export function adopt(resp: { access_token: string; expires_at: string | null }): void {
  if (!resp.access_token || !resp.expires_at) return
  session.value = { token: resp.access_token, expiresAt: resp.expires_at }
  sessionStorage.setItem(KEY, JSON.stringify(session.value))
}

/** Forgets the session here (the token is stateless: signing out is dropping it). */
export function endSession(): void {
  session.value = null
  me.value = null
  sessionStorage.removeItem(KEY)
}
