import { signal } from '@preact/signals'
import { useEffect } from 'preact/hooks'
import { getAuthConfig } from '../api/auth'
import type { AuthConfig } from '../api/types'

const config = signal<AuthConfig | null>(null)

/** Fetches the server's sign-up mode and options again (after the first workspace exists). */
export async function reloadAuthConfig(): Promise<AuthConfig> {
  config.value = await getAuthConfig()
  return config.value
}

/**
 * The server's sign-up mode and options (`/auth/config`), loaded once; null until known. `fresh`
 * asks again on mount (the sign-in page: an admin may have set single sign-on up since).
 */
export function useAuthConfig(fresh = false): AuthConfig | null {
  useEffect(() => {
    if (fresh || !config.value) reloadAuthConfig().catch(() => undefined)
  }, [])
  return config.value
}
