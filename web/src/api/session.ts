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

/** Why the last session ended without the person signing out: the sign-in page says so. */
export type SignedOutReason = 'expired'

/** The tab's session, and whether one it held has run out since. */
function load(): { stored: Stored | null; expired: boolean } {
  try {
    const s = JSON.parse(sessionStorage.getItem(KEY) ?? 'null') as Stored | null
    if (!s) return { stored: null, expired: false }
    if (Date.parse(s.expiresAt) > Date.now()) return { stored: s, expired: false }
    sessionStorage.removeItem(KEY)
    return { stored: null, expired: true }
  } catch {
    return { stored: null, expired: false }
  }
}

const initial = load()

/** The current session, or null when signed out. */
export const session = signal<Stored | null>(initial.stored)
/**
 * Set when a session ended by itself (it expired, or the server answered 401: revoked, signed out
 * elsewhere, the account changed), so the sign-in page can say "you were signed out" rather than
 * look like a first visit. Cleared by the next sign-in and by signing out on purpose.
 */
export const signedOut = signal<SignedOutReason | null>(initial.expired ? 'expired' : null)
/** Who is signed in (loaded after sign-in and on start). */
export const me = signal<User | null>(null)

/** Keeps a session the API issued (sign-in, sign-up, accepted invite, refresh). */
export function adopt(resp: { access_token: string; expires_at: string | null }): void {
  if (!resp.access_token || !resp.expires_at) return
  session.value = { token: resp.access_token, expiresAt: resp.expires_at }
  signedOut.value = null
  sessionStorage.setItem(KEY, JSON.stringify(session.value))
}

/**
 * Forgets the session here (the token is stateless: signing out is dropping it). `reason` says it
 * ended by itself; without one the person signed out.
 */
export function endSession(reason: SignedOutReason | null = null): void {
  signedOut.value = reason
  session.value = null
  me.value = null
  sessionStorage.removeItem(KEY)
}
