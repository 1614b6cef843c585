import { THREE_TOPICS } from './texts.fixture'

/** The documents the compare, scale and economics tests put in their base. */
export const FILES = THREE_TOPICS

/** Bytes in the GB of the memory price. */
export const GB = 1024 ** 3

/**
 * Closeness for rounded figures: within `rel` of the larger, or within `abs` (money is sent with six
 * significant digits and CPU times with microsecond precision).
 */
export function near(a: number, b: number, rel = 1e-4, abs = 0): boolean {
  return Math.abs(a - b) <= Math.max(abs, rel * Math.max(Math.abs(a), Math.abs(b)))
}
