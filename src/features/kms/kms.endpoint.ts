// Where a workspace may point its KMS: an http(s) URL without credentials or a path the SDK would
// mangle, https unless `kms.allow_http`, judged by the outbound guard (platform/net): link-local and
// cloud metadata addresses never, loopback only with `kms.allow_loopback`, private networks only
// with `kms.allow_private_networks`. Judged when saved, and again by the SDK's connections, which
// resolve names through `kmsLookup` (a name may resolve elsewhere by then: DNS rebinding).
import type { LookupFunction } from 'node:net'
import type { Config } from '../../platform/config/config.load'
import { type AddressPolicy, refusalOf } from '../../platform/net/address-policy'
import { EgressDenied, EgressGuard, hostOf, judgedLookup, type Resolver } from '../../platform/net/egress'

/** Judges a KMS host: throws EgressDenied unless each address it resolves to may be reached; returns them. */
export function kmsCheck(
  config: Config['kms'],
  resolve?: Resolver,
): (urlOrHost: string) => Promise<string[]> {
  // Private networks are judged apart: the guard counts loopback among them, which has its own switch.
  const guard = new EgressGuard({
    denyPrivateNetworks: false,
    allowLoopback: config.allow_loopback,
    ...(resolve ? { resolve } : {}),
  })
  return async (urlOrHost) => {
    const addresses = await guard.check(urlOrHost)
    if (!config.allow_private_networks && addresses.some(isPrivateOnly)) {
      throw new EgressDenied(hostOf(urlOrHost) ?? urlOrHost, 'private', PRIVATE)
    }
    return addresses
  }
}

/** A `dns.lookup` for the SDK's agents: only addresses `kmsCheck` judged come back. */
export function kmsLookup(config: Config['kms'], resolve?: Resolver): LookupFunction {
  return judgedLookup(kmsCheck(config, resolve))
}

const PRIVATE = 'a private network address, allowed only by kms.allow_private_networks'

/** Why `endpoint` may not be used, in a person's words, or null. */
export async function endpointProblem(
  endpoint: string,
  config: Config['kms'],
  resolve?: Resolver,
): Promise<string | null> {
  let u: URL
  try {
    u = new URL(endpoint)
  } catch {
    return 'Must be an absolute URL such as https://kms.example.com'
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return 'Must be an https URL'
  if (u.protocol === 'http:' && !config.allow_http) {
    return 'Must be an https URL (plain http is allowed only when the operator sets kms.allow_http)'
  }
  if (u.username || u.password) return 'Must not hold a user name or password'
  if (u.search || u.hash) return 'Must not have a query or a fragment'
  try {
    await kmsCheck(config, resolve)(endpoint)
  } catch (e) {
    if (!(e instanceof EgressDenied)) throw e
    return e.message.replace('sources.allow_loopback', 'kms.allow_loopback')
  }
  return null
}

/** Judged against no interface of ours: only the range of the address decides. */
const RANGE_ONLY: ReadonlySet<string> = new Set()

/** An address in a private range (and not loopback or this host, which the guard judges). */
function isPrivateOnly(address: string): boolean {
  const strict: AddressPolicy = { denyPrivateNetworks: true, allowLoopback: true, own: RANGE_ONLY }
  const lax: AddressPolicy = { denyPrivateNetworks: false, allowLoopback: false, own: RANGE_ONLY }
  return refusalOf(address, strict) === 'private' && refusalOf(address, lax) === null
}
