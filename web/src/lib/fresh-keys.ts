/**
 * Secrets of the keys created in this tab, kept in memory only so the MCP page can fill a client
 * configuration with a key just made. Never written to any storage: a reload forgets them, which
 * is what "shown once" means (the server keeps only a hash and cannot show them again). Signing
 * out forgets them too, so the next person to sign in at this tab never sees them.
 */
import { effect, signal } from '@preact/signals'
import { session } from '../api/session'

/** Key id → secret, for keys created since this tab was loaded. */
export const freshKeys = signal<Record<string, string>>({})

/** Remembers a secret the API just showed. */
export function rememberFreshKey(id: string, secret: string): void {
  freshKeys.value = { ...freshKeys.value, [id]: secret }
}

effect(() => {
  if (!session.value) freshKeys.value = {}
})
