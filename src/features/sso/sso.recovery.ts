// Break-glass recovery codes: while a workspace enforces SSO, an admin locked out by a broken
// identity provider signs in with their password and one of these, once. A code carries 100 random
// bits, so its SHA-256 is enough at rest (as for API keys and link tokens), and a guess is hopeless;
// sign-in's per-account rate limit still applies to the password it comes with.
import type { Random } from '../../platform/crypto/random'
import { secretHash } from '../../platform/crypto/token'

/** Codes issued each time enforcement is turned on or new codes are asked for. */
export const RECOVERY_CODE_COUNT = 10

// 32 letters and digits without 0/o and 1/l, so a code read aloud or copied by hand survives.
const ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789'

/** One code: four groups of five characters (20 x 5 bits = 100 bits), e.g. `k3m9q-...`. */
export function newRecoveryCode(random: Random): string {
  const bytes = random.bytes(20)
  let out = ''
  for (let i = 0; i < bytes.length; i++) {
    if (i > 0 && i % 5 === 0) out += '-'
    // 32 divides 256: masking keeps each character uniform.
    out += ALPHABET[bytes[i]! & 31]
  }
  return out
}

/** The stored form of a code as typed: case, spaces and dashes do not matter. */
export function recoveryCodeHash(typed: string): string {
  return secretHash(typed.toLowerCase().replace(/[\s-]/g, ''))
}
