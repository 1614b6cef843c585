// Where a workspace may point its KMS: an http(s) URL without credentials or a path the SDK would
// mangle, https unless `kms.allow_http`, judged by the outbound guard (platform/net): link-local and
// cloud metadata addresses never, loopback only with `kms.allow_loopback`, private networks only
// with `kms.allow_private_networks`. Judged when saved; the SDK then resolves the name itself.
import type { Config } from '../../platform/config/config.load'
import { type AddressPolicy, refusalOf } from '../../platform/net/address-policy'
import { EgressDenied, EgressGuard, type Resolver } from '../../platform/net/egress'

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
  // Private networks are judged apart: the guard counts loopback among them, which has its own switch.
  const guard = new EgressGuard({
    denyPrivateNetworks: false,
    allowLoopback: config.allow_loopback,
    ...(resolve ? { resolve } : {}),
  })
  try {
    const addresses = await guard.check(endpoint)
    if (!config.allow_private_networks && addresses.some(isPrivateOnly)) {
      return `Requests to "${u.hostname}" are not allowed (a private network address, allowed only by kms.allow_private_networks).`
    }
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
