import { signal } from '@preact/signals'

/**
 * A verification link the API answered (email turned off: `link_delivery: response`), handed from
 * the sign-up page to "check your email" in memory: in the address bar its token would stay in the
 * browser's history.
 */
export const handedLink = signal<string | null>(null)
