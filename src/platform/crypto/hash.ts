import { timingSafeEqual } from 'node:crypto'

/** Hex SHA-256 of a string or bytes. */
export function sha256Hex(data: string | Uint8Array): string {
  return new Bun.CryptoHasher('sha256').update(data).digest('hex')
}

/** Constant-time string comparison; unequal lengths return false without early exit on content. */
export function constantTimeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a)
  const bb = Buffer.from(b)
  if (ab.length !== bb.length) {
    // Compare against itself so the time spent does not depend on where the strings differ.
    timingSafeEqual(ab, ab)
    return false
  }
  return timingSafeEqual(ab, bb)
}
