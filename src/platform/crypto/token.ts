import { createHmac } from 'node:crypto'
import { constantTimeEqual } from './hash'
import { base62, type Random } from './random'

// The only header we ever issue or accept: pinning it refuses `alg: none` and algorithm swaps.
const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url')

/**
 * Signs and verifies compact HS256 JSON Web Tokens with a key derived from the server secret.
 * Deriving a purpose-bound key means a signature made for one purpose is never valid for another.
 *
 * Hand-written rather than through jose on purpose: every request with a session runs `verify`, and
 * measured side by side (bench/session-token.bench.ts, 2026-11-24, interleaved rounds, two runs) this costs
 * 2.5-2.6 µs a call against 33-46 µs for jose's `jwtVerify` with a pre-imported key (it is async,
 * through WebCrypto): 13 to 18 times as much, about the whole pipeline's own budget for a keyed
 * read. `sign` is 1.8 µs against 35-47 µs, and stays synchronous for its callers. The output is byte for byte what jose's `SignJWT`
 * makes with the same header and key, and tests/unit/session-token.test.ts holds this code to jose
 * in both directions (jose verifies ours; other algorithms, `alg: none` and foreign keys are refused).
 */
export class TokenSigner {
  private readonly key: Buffer

  constructor(secret: string, purpose: string) {
    this.key = createHmac('sha256', secret).update(`engram:${purpose}`).digest()
  }

  /** A signed token carrying `claims`. */
  sign(claims: Record<string, unknown>): string {
    const body = `${HEADER}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`
    return `${body}.${this.mac(body)}`
  }

  /** The claims of a token whose header and signature are ours, else null. Expiry is the caller's. */
  verify(token: string): Record<string, unknown> | null {
    if (token.length > 4096) return null
    const parts = token.split('.')
    if (parts.length !== 3 || parts[0] !== HEADER) return null
    const [header, payload, signature] = parts as [string, string, string]
    // Constant time: a byte-by-byte early exit would let a caller find a valid signature by timing.
    if (!constantTimeEqual(signature, this.mac(`${header}.${payload}`))) return null
    try {
      const claims: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'))
      return typeof claims === 'object' && claims !== null && !Array.isArray(claims)
        ? (claims as Record<string, unknown>)
        : null
    } catch {
      return null
    }
  }

  private mac(data: string): string {
    // Bun's hasher with a key is HMAC, about a third cheaper per request than node:crypto's.
    return new Bun.CryptoHasher('sha256', this.key).update(data).digest('base64url')
  }
}

/** Lifetime class of a session: `remember` is the long-lived class minted by `remember_me`. */
export type SessionClass = 'normal' | 'remember'

/** What a session token says: user, workspace, token version, class and its times (Unix seconds). */
export interface SessionClaims {
  sub: string
  wid: string
  ver: number
  cls: SessionClass
  iat: number
  exp: number
  /** Original sign-in time; the absolute cap counts from here across refreshes. */
  sat: number
  /**
   * How the user signed in (`password`, `sso`, `google`, `recovery_code`), kept across refreshes:
   * a workspace that turns single sign-on enforcement on ends the sessions not made through it.
   * Absent from tokens minted before it existed, which count as `password`.
   */
  via?: string
}

/** Session lifetimes in seconds. */
export interface SessionLifetimes {
  normal: number
  remember: number
  cap: number
}

/**
 * Mints, reads and refreshes session tokens. Pure: no storage, so the per-request checks against
 * the user's current state (version, status, workspace) stay with the caller.
 */
export class SessionTokens {
  private readonly signer: TokenSigner

  constructor(
    secret: string,
    private readonly lifetimes: SessionLifetimes,
  ) {
    this.signer = new TokenSigner(secret, 'session')
  }

  /** A new token for a sign-in at `nowSec` by `via` (or a refresh keeping `signedInAt` and `via`). */
  issue(
    subject: { userId: string; workspaceId: string; tokenVersion: number },
    cls: SessionClass,
    nowSec: number,
    signedInAt = nowSec,
    via?: string,
  ): { token: string; claims: SessionClaims } {
    const claims: SessionClaims = {
      sub: subject.userId,
      wid: subject.workspaceId,
      ver: subject.tokenVersion,
      cls,
      iat: nowSec,
      exp: Math.min(nowSec + this.lifetimes[cls], signedInAt + this.lifetimes.cap),
      sat: signedInAt,
      ...(via === undefined ? {} : { via }),
    }
    return { token: this.signer.sign({ ...claims }), claims }
  }

  /** The claims of a genuine, well-formed token; expiry is checked separately by `isLive`. */
  read(token: string): SessionClaims | null {
    const c = this.signer.verify(token)
    if (!c) return null
    const ok =
      typeof c.sub === 'string' &&
      typeof c.wid === 'string' &&
      Number.isInteger(c.ver) &&
      (c.cls === 'normal' || c.cls === 'remember') &&
      Number.isInteger(c.iat) &&
      Number.isInteger(c.exp) &&
      Number.isInteger(c.sat) &&
      (c.via === undefined || typeof c.via === 'string')
    return ok ? (c as unknown as SessionClaims) : null
  }

  /** Whether a token is inside its lifetime and its absolute cap. */
  isLive(claims: SessionClaims, nowSec: number): boolean {
    return nowSec < claims.exp && nowSec < claims.sat + this.lifetimes.cap
  }

  /**
   * The refresh rule: a token past half its life is swapped for a fresh one of the same class;
   * before that, or when the cap leaves nothing to extend, the token is kept as it is.
   */
  shouldRefresh(claims: SessionClaims, nowSec: number): boolean {
    const halfLife = claims.iat + (claims.exp - claims.iat) / 2
    if (nowSec < halfLife) return false
    const extended = Math.min(nowSec + this.lifetimes[claims.cls], claims.sat + this.lifetimes.cap)
    return extended > claims.exp
  }
}

/**
 * The stored form of a high-entropy secret (API key, link token): SHA-256 hex, the same digest as
 * `sha256Hex`, through Bun's one-shot hasher, which is about twice as fast on the per-request path.
 */
export function secretHash(secret: string): string {
  return Bun.SHA256.hash(secret, 'hex')
}

/** A single-use link secret: the token mailed to the user and the SHA-256 hex that is stored. */
export function newLinkToken(random: Random): { token: string; hash: string } {
  // 43 base62 characters: about 256 bits, far beyond guessing, so no per-token rate limit is needed.
  const token = base62(random, 43)
  return { token, hash: secretHash(token) }
}
