// What the outbound guard says when it refuses a destination (egress.ts, guarded-fetch.ts).
import type { AddressRefusal } from './address-policy'

/** Why a destination was refused. */
export type EgressRefusal = AddressRefusal | 'scheme' | 'redirect' | 'unresolvable'

const REASONS: Record<EgressRefusal, string> = {
  metadata: 'a cloud metadata address',
  link_local: 'a link-local address',
  loopback: "loopback or this server's own address, allowed only by sources.allow_loopback",
  private: 'a private or loopback address, denied by sources.deny_private_networks',
  unspecified: 'an unspecified, broadcast or multicast address',
  scheme: 'only http and https are allowed',
  redirect: 'a redirect that is not followed',
  unresolvable: 'no address',
}

/** A destination the guard refuses, with the reason; the caller words it for the person. */
export class EgressDenied extends Error {
  override name = 'EgressDenied'
  constructor(
    readonly host: string,
    readonly reason: EgressRefusal,
    /** For `redirect`: which rule the redirect broke. */
    why = '',
  ) {
    super(
      reason === 'unresolvable'
        ? `The host "${host}" could not be resolved.`
        : `Outbound requests to "${host}" are not allowed (${why || REASONS[reason]}).`,
    )
  }
}
