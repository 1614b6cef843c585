// The provider check behind an administrator's "test" button: is discovery readable, does the key
// set hold a signing key, and does the token endpoint accept our client? Each step answers
// {name, ok, detail}; a step that cannot run because an earlier one failed says so.
import * as oidc from 'openid-client'

/** One step of a provider check. */
export interface ProviderCheck {
  name: 'discovery' | 'jwks' | 'token_endpoint'
  ok: boolean
  detail: string
}

/** Runs the three checks against a provider, in order; `discover` does a fresh discovery. */
export async function checkProvider(
  discover: () => Promise<oidc.Configuration>,
  redirectUri: string,
  fetcher: oidc.CustomFetch | undefined,
): Promise<ProviderCheck[]> {
  let config: oidc.Configuration
  try {
    config = await discover()
  } catch (e) {
    return [
      { name: 'discovery', ok: false, detail: (e as Error).message },
      { name: 'jwks', ok: false, detail: 'Not checked: discovery failed.' },
      { name: 'token_endpoint', ok: false, detail: 'Not checked: discovery failed.' },
    ]
  }
  const meta = config.serverMetadata()
  return [
    { name: 'discovery', ok: true, detail: `The provider ${meta.issuer} published its configuration.` },
    await checkJwks(meta.jwks_uri, fetcher),
    await checkTokenEndpoint(config, redirectUri),
  ]
}

async function checkJwks(
  uri: string | undefined,
  fetcher: oidc.CustomFetch | undefined,
): Promise<ProviderCheck> {
  if (!uri) return { name: 'jwks', ok: false, detail: 'Discovery names no jwks_uri.' }
  try {
    const get = fetcher ?? ((u: string, o: oidc.CustomFetchOptions) => fetch(u, o as RequestInit))
    const res = await get(uri, {
      method: 'GET',
      headers: { accept: 'application/json' },
      body: undefined,
      redirect: 'manual',
      signal: AbortSignal.timeout(10_000),
    })
    if (!res.ok) return { name: 'jwks', ok: false, detail: `The key set answered HTTP ${res.status}.` }
    const body = (await res.json()) as { keys?: { use?: string; kty?: string }[] }
    const signing = (body.keys ?? []).filter((k) => k.use === undefined || k.use === 'sig')
    if (signing.length === 0) return { name: 'jwks', ok: false, detail: 'The key set holds no signing key.' }
    return { name: 'jwks', ok: true, detail: `The key set holds ${signing.length} signing key(s).` }
  } catch (e) {
    return { name: 'jwks', ok: false, detail: `The key set could not be read: ${(e as Error).message}` }
  }
}

/**
 * Sends the token endpoint a made-up code with our client credentials: `invalid_grant` means the
 * credentials were accepted (only the code was wrong), `invalid_client` that they were not.
 */
async function checkTokenEndpoint(config: oidc.Configuration, redirectUri: string): Promise<ProviderCheck> {
  const name = 'token_endpoint'
  try {
    await oidc.genericGrantRequest(config, 'authorization_code', {
      code: 'engram-provider-check',
      redirect_uri: redirectUri,
    })
    return { name, ok: false, detail: 'The token endpoint accepted a made-up code.' }
  } catch (e) {
    if (e instanceof oidc.ResponseBodyError) {
      if (e.error === 'invalid_grant') {
        return { name, ok: true, detail: 'The token endpoint accepted the client id and secret.' }
      }
      if (e.error === 'invalid_client' || e.error === 'unauthorized_client') {
        return { name, ok: false, detail: 'The token endpoint refused the client id or secret.' }
      }
      return { name, ok: false, detail: `The token endpoint answered ${e.error}.` }
    }
    return { name, ok: false, detail: `The token endpoint could not be reached: ${(e as Error).message}` }
  }
}
