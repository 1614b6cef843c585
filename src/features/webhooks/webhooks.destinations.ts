// Where a webhook may be sent, judged when an endpoint is subscribed and again at every attempt
// (a name may resolve elsewhere by then: DNS rebinding). The outbound guard sources use
// (platform/net) refuses link-local and metadata addresses always, and loopback and this server's
// own addresses unless `webhooks.allow_loopback`; this file adds that private networks are refused
// unless `webhooks.allow_private_networks`, and that a URL is https unless `webhooks.allow_http`.
import type { Config } from '../../platform/config/config.load'
import { hasControl } from '../../platform/http/text-formats'
import { type AddressPolicy, refusalOf } from '../../platform/net/address-policy'
import {
  EgressDenied,
  EgressGuard,
  type EgressRefusal,
  hostOf,
  type Resolver,
} from '../../platform/net/egress'
import { guardedFetch } from '../../platform/net/guarded-fetch'

export type WebhooksConfig = Config['webhooks']

/** The operator's words for each refusal, naming the webhooks settings (not the sources ones). */
const REASONS: Partial<Record<EgressRefusal, string>> = {
  loopback: "loopback or this server's own address, allowed only by webhooks.allow_loopback",
  private: 'a private network address, allowed only by webhooks.allow_private_networks',
  redirect: 'a redirect, which webhook deliveries never follow',
}

/** Judged against no interface of ours: only the range of the address decides. */
const RANGE_ONLY: ReadonlySet<string> = new Set()

/** Why a URL is not one a webhook may be subscribed at, in a person's words, or null. */
export function urlProblem(url: string, allowHttp: boolean): string | null {
  // The URL parser drops tabs and line breaks silently: what is shown would not be what is reached.
  if (/\s/.test(url) || hasControl(url)) return 'Must not contain spaces or control characters'
  let u: URL
  try {
    u = new URL(url)
  } catch {
    return 'Must be an absolute URL such as https://example.com/hooks'
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return 'Must be an https URL'
  if (u.protocol === 'http:' && !allowHttp) {
    return 'Must be an https URL (plain http is allowed only when the operator sets webhooks.allow_http)'
  }
  // A user name or password would be shown in every listing of the endpoint.
  if (u.username || u.password) return 'Must not hold a user name or password'
  if (u.hash) return 'Must not have a fragment (#...)'
  return null
}

/** An address in a private range (and not loopback or this host, which the guard judges). */
function isPrivateOnly(address: string): boolean {
  const strict: AddressPolicy = { denyPrivateNetworks: true, allowLoopback: true, own: RANGE_ONLY }
  const lax: AddressPolicy = { denyPrivateNetworks: false, allowLoopback: false, own: RANGE_ONLY }
  return refusalOf(address, strict) === 'private' && refusalOf(address, lax) === null
}

/** The guard for webhook destinations, and a `fetch` that connects only to what it judged. */
export class Destinations {
  private readonly guard: EgressGuard
  readonly fetch: typeof fetch

  constructor(
    private readonly config: WebhooksConfig,
    resolve?: Resolver,
  ) {
    this.guard = new EgressGuard({
      denyPrivateNetworks: false,
      allowLoopback: config.allow_loopback,
      ...(resolve ? { resolve } : {}),
    })
    this.fetch = guardedFetch(this.check)
  }

  /** Throws EgressDenied unless every address the URL's host resolves to may be reached; returns them. */
  check = async (url: string): Promise<string[]> => {
    let addresses: string[]
    try {
      addresses = await this.guard.check(url)
    } catch (e) {
      throw e instanceof EgressDenied ? reworded(e) : e
    }
    if (!this.config.allow_private_networks) {
      const host = hostOf(url) ?? url
      for (const a of addresses) if (isPrivateOnly(a)) throw reworded(new EgressDenied(host, 'private'))
    }
    return addresses
  }
}

function reworded(e: EgressDenied): EgressDenied {
  const why = REASONS[e.reason]
  return why ? new EgressDenied(e.host, e.reason, why) : e
}
