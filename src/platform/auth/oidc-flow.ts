// The state of a sign-in through a provider between the redirect out and the callback: the state,
// nonce and PKCE verifier (and a caller's payload, such as the workspace of a single sign-on),
// sealed into a short-lived cookie bound to the browser that began the flow. The callback's `state`
// must match the cookie's, so a callback URL made in another browser (login CSRF) or a forged state
// is refused; a flow is taken once, on every process sharing the database, so a replayed callback
// is refused too, whichever replica it reaches.
import type { Clock } from '../clock/clock'
import { constantTimeEqual } from '../crypto/hash'
import { SealBroken, Sealer } from '../crypto/sealed'
import { secretHash } from '../crypto/token'
import type { Store } from '../db/store'
import { SpentFlows } from './oidc-spent.repo'

/** What is sealed into the cookie; `payload` is the caller's (strings only). */
export interface FlowValues {
  state: string
  nonce: string
  codeVerifier: string
  payload?: Record<string, string>
}

/** Why a callback's flow was refused (each is logged; the browser is told one thing). */
export type FlowRefusal = 'missing' | 'forged' | 'expired' | 'state_mismatch' | 'replayed'

/** A callback whose flow cookie is absent, altered, stale, for another state, or already used. */
export class FlowRefused extends Error {
  override name = 'FlowRefused'
  constructor(readonly reason: FlowRefusal) {
    super(`The sign-in flow was refused: ${reason}.`)
  }
}

/** Where the cookie lives and for how long. */
export interface FlowCookieOptions {
  /** The cookie's name (one per kind of flow: `engram_google_flow`). */
  name: string
  /** The callback's path: the browser sends the cookie there only. */
  path: string
  /** Secure cookie (set when the public URL is https). */
  secure: boolean
  /** Lifetime in seconds (default ten minutes: time to sign in at the provider). */
  ttlSeconds?: number
}

interface Sealed extends FlowValues {
  exp: number
}

/** How often a process sweeps the spent flows whose cookies have expired (ms). */
const SWEEP_EVERY_MS = 60_000

/**
 * Issues and takes the sealed flow cookie of one kind of sign-in. Spent flows are recorded in the
 * database (`oidc_spent_flows`) until their cookies expire, so a callback replayed to another
 * replica, or after a restart, is refused; the provider's code is single-use too.
 */
export class OidcFlowState {
  private readonly sealer: Sealer
  private readonly spent: SpentFlows
  private readonly ttl: number
  /** When this process last swept expired spent flows (ms; 0: not yet). */
  private sweptAt = 0

  constructor(
    secret: string,
    private readonly clock: Clock,
    store: Store,
    private readonly cookie: FlowCookieOptions,
  ) {
    // One key per kind of flow: a Google flow's cookie does not open as a single sign-on's.
    this.sealer = new Sealer(secret, `oidc-flow:${cookie.name}`)
    this.spent = new SpentFlows(store)
    this.ttl = cookie.ttlSeconds ?? 600
  }

  /** The `Set-Cookie` value that binds these values to the browser. */
  issue(values: FlowValues): string {
    const exp = this.nowMs() + this.ttl * 1000
    const sealed = this.sealer.seal(JSON.stringify({ ...values, exp } satisfies Sealed), this.cookie.name)
    return this.cookieHeader(sealed, this.ttl)
  }

  /**
   * The flow of a callback: the cookie must open, be live, not be spent, and name the callback's
   * `state` (compared in constant time). Marks it spent in the database (one insert-if-absent, so
   * of two callbacks of one flow on any replicas one passes); throws FlowRefused otherwise.
   */
  async take(request: Request, state: string | undefined): Promise<FlowValues> {
    const raw = readCookie(request.headers.get('cookie'), this.cookie.name)
    if (!raw) throw new FlowRefused('missing')
    let v: Sealed
    try {
      v = JSON.parse(this.sealer.open(raw, this.cookie.name)) as Sealed
    } catch (e) {
      if (e instanceof SealBroken || e instanceof SyntaxError) throw new FlowRefused('forged')
      throw e
    }
    const now = this.nowMs()
    if (!(v.exp > now)) throw new FlowRefused('expired')
    if (!state || !constantTimeEqual(state, v.state)) throw new FlowRefused('state_mismatch')
    await this.sweep(now)
    if (!(await this.spent.spend(secretHash(v.state), v.exp))) throw new FlowRefused('replayed')
    return { state: v.state, nonce: v.nonce, codeVerifier: v.codeVerifier, payload: v.payload }
  }

  /** The `Set-Cookie` value that removes the cookie (sent with every callback answer). */
  clear(): string {
    return this.cookieHeader('', 0)
  }

  private cookieHeader(value: string, maxAge: number): string {
    const parts = [
      `${this.cookie.name}=${value}`,
      `Path=${this.cookie.path}`,
      `Max-Age=${maxAge}`,
      'HttpOnly',
    ]
    // Lax: the provider's redirect back is a top-level GET, which carries it; cross-site posts do not.
    parts.push('SameSite=Lax')
    if (this.cookie.secure) parts.push('Secure')
    return parts.join('; ')
  }

  /** Sweeps expired spent flows, at most once a minute in this process (sign-ins are rare). */
  private async sweep(now: number): Promise<void> {
    if (now - this.sweptAt < SWEEP_EVERY_MS) return
    this.sweptAt = now
    await this.spent.sweep(now)
  }

  private nowMs(): number {
    return this.clock.now().getTime()
  }
}

/** A cookie's value from a `Cookie` header, or undefined. */
export function readCookie(header: string | null, name: string): string | undefined {
  if (!header) return undefined
  for (const part of header.split(';')) {
    const i = part.indexOf('=')
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim()
  }
  return undefined
}
