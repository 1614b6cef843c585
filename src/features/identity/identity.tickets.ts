// Link tickets: when the address a provider vouched for already has a password account, the
// callback hands the browser a short-lived signed ticket instead of a session; the person proves
// the password with it (POST /auth/link) and the identity is linked. The ticket names the provider
// identity and the address, so it links exactly what the provider asserted, to that account only.
import type { Clock } from '../../platform/clock/clock'
import { TokenSigner } from '../../platform/crypto/token'
import { fail } from '../../platform/errors/errors'

/** What a link ticket says: the provider identity and the address it vouched for. */
export interface LinkTicket {
  provider: string
  issuer: string
  subject: string
  email: string
  name: string | null
}

const TTL_SECONDS = 600

/** Signs and reads link tickets (HS256 under a key for this purpose only, ten minutes). */
export class LinkTickets {
  private readonly signer: TokenSigner

  constructor(
    secret: string,
    private readonly clock: Clock,
  ) {
    this.signer = new TokenSigner(secret, 'identity-link-ticket')
  }

  /** A ticket for this identity. */
  issue(t: LinkTicket): string {
    return this.signer.sign({ ...t, exp: this.nowSec() + TTL_SECONDS })
  }

  /** The identity a live, genuine ticket names; an expired or forged one is one refusal. */
  read(ticket: string): LinkTicket {
    const c = this.signer.verify(ticket)
    const ok =
      c !== null &&
      typeof c.exp === 'number' &&
      c.exp > this.nowSec() &&
      typeof c.provider === 'string' &&
      typeof c.issuer === 'string' &&
      typeof c.subject === 'string' &&
      typeof c.email === 'string' &&
      (c.name === null || typeof c.name === 'string')
    if (!ok) throw fail('link_ticket_invalid')
    return {
      provider: c.provider,
      issuer: c.issuer,
      subject: c.subject,
      email: c.email,
      name: c.name,
    } as LinkTicket
  }

  private nowSec(): number {
    return Math.floor(this.clock.now().getTime() / 1000)
  }
}
