// Which OpenID issuers may be used, apart from the relying party so that configuration can check
// it at start-up without loading the OpenID client.

const LOOPBACK = /^(127(?:\.\d{1,3}){3}|\[::1\]|localhost)$/i

/**
 * Whether an issuer may be used: `https://` always; `http://` only on a loopback address (tests, a
 * provider on this machine) or when the operator allows it, since tokens and the client secret
 * would otherwise cross the network in the clear.
 */
export function issuerAllowed(issuer: string, allowHttp = false): boolean {
  let url: URL
  try {
    url = new URL(issuer)
  } catch {
    return false
  }
  if (url.protocol === 'https:') return true
  return url.protocol === 'http:' && (allowHttp || LOOPBACK.test(url.hostname))
}
