// A real OpenID provider (oidc-provider) on loopback for tests: it plays Google or a customer's
// identity provider. The provider itself listens on an inner port; tests talk to a front server (the
// issuer) that passes every request through, with the forwarded host so the provider names the
// front in its documents, and that can tamper with the token endpoint's ID token to make each
// attack an honest relying party must refuse (another key, `alg: none`, wrong audience or issuer,
// expired, wrong nonce). Sign-in is a small custom interaction the test drives with fetches.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { exportJWK, generateKeyPair, importJWK, type JWK, SignJWT } from 'jose'
import Provider from 'oidc-provider'

/** A person at the provider and the claims it asserts about them. */
export interface ProviderAccount {
  email: string
  email_verified: boolean
  name: string
}

/** A client registered at the provider. */
export interface ProviderClient {
  client_id: string
  client_secret: string
  redirect_uris: string[]
}

/** How the front rewrites the next token endpoint answer's ID token (the attacks). */
export type Tamper =
  | { kind: 'other_key' }
  | { kind: 'alg_none' }
  | { kind: 'claims'; set: Record<string, unknown> }
  | { kind: 'hs256'; secret: string }

/** A running provider: its issuer URL, accounts, the tamper switch and a browser driver. */
export interface TestProvider {
  issuer: string
  accounts: Map<string, ProviderAccount>
  /** Applied to every token endpoint answer until set back to null. */
  tamper: Tamper | null
  /** Requests the front has seen, as `METHOD /path` (what the relying party asked for). */
  seen: string[]
  /**
   * Plays the browser at the provider: follows `authorizationUrl` through the sign-in of
   * `account` (a key of `accounts`) and returns where the provider sends the browser back (the
   * relying party's callback with `code` and `state`).
   */
  signIn(authorizationUrl: string, account: string): Promise<URL>
  stop(): Promise<void>
}

/** Starts a provider on 127.0.0.1 with these clients and accounts. */
export async function startProvider(opts: {
  clients: ProviderClient[]
  accounts: Record<string, ProviderAccount>
}): Promise<TestProvider> {
  const accounts = new Map(Object.entries(opts.accounts))
  const { privateKey } = await generateKeyPair('RS256', { extractable: true })
  const jwk: JWK = { ...(await exportJWK(privateKey)), kid: 'test-key', alg: 'RS256', use: 'sig' }

  const inner = createServer()
  const innerPort = await listen(inner)
  const front = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (r) => pass(r) })
  const issuer = `http://127.0.0.1:${front.port}`

  const provider = new Provider(issuer, {
    clients: opts.clients.map((c) => ({
      ...c,
      grant_types: ['authorization_code'],
      response_types: ['code'],
    })),
    jwks: { keys: [jwk] },
    cookies: { keys: ['test-cookie-key-test-cookie-key'] },
    // Google puts the address in the ID token; so does this provider.
    conformIdTokenClaims: false,
    ttl: {
      Interaction: 600,
      Grant: 600,
      Session: 600,
      AccessToken: 600,
      IdToken: 600,
      AuthorizationCode: 60,
    },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    async findAccount(_ctx, id) {
      const a = accounts.get(id)
      if (!a) return undefined
      return { accountId: id, claims: () => ({ sub: id, ...a }) }
    },
    // Consent is given at once (a first-party client), so sign-in is the only interaction.
    async loadExistingGrant(ctx) {
      const accountId = ctx.oidc.session!.accountId!
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client!.clientId, accountId })
      grant.addOIDCScope('openid email profile')
      await grant.save()
      return grant
    },
  })
  provider.proxy = true
  const callback = provider.callback()
  inner.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const m = /^\/interaction\/([^/?]+)\/login\?account=([^&]+)$/.exec(req.url ?? '')
    if (!m) return callback(req, res)
    const accountId = decodeURIComponent(m[2]!)
    provider
      .interactionFinished(req, res, { login: { accountId } }, { mergeWithLastSubmission: false })
      .catch((e: Error) => {
        res.statusCode = 500
        res.end(e.message)
      })
  })

  const state: TestProvider = {
    issuer,
    accounts,
    tamper: null,
    seen: [],
    signIn: (url, account) => driveSignIn(issuer, url, account),
    async stop() {
      front.stop(true)
      await new Promise<void>((resolve) => inner.close(() => resolve()))
    },
  }

  async function pass(r: Request): Promise<Response> {
    const url = new URL(r.url)
    state.seen.push(`${r.method} ${url.pathname}`)
    const headers = new Headers(r.headers)
    headers.set('x-forwarded-host', url.host)
    headers.set('x-forwarded-proto', 'http')
    const res = await fetch(`http://127.0.0.1:${innerPort}${url.pathname}${url.search}`, {
      method: r.method,
      headers,
      body: r.method === 'GET' || r.method === 'HEAD' ? undefined : await r.arrayBuffer(),
      redirect: 'manual',
    })
    const body = await res.arrayBuffer()
    const out = new Headers(res.headers)
    out.delete('content-length')
    out.delete('content-encoding')
    if (url.pathname === '/token' && state.tamper && res.ok) {
      const json = JSON.parse(new TextDecoder().decode(body)) as { id_token?: string }
      if (json.id_token) json.id_token = await rewrite(json.id_token, state.tamper, jwk)
      return new Response(JSON.stringify(json), { status: res.status, headers: out })
    }
    return new Response(body, { status: res.status, headers: out })
  }
  return state
}

/** The ID token re-made as the attack says. */
async function rewrite(idToken: string, t: Tamper, jwk: JWK): Promise<string> {
  const claims = JSON.parse(Buffer.from(idToken.split('.')[1]!, 'base64url').toString()) as Record<
    string,
    unknown
  >
  const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url')
  if (t.kind === 'alg_none') return `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`
  if (t.kind === 'hs256') {
    return new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(t.secret))
  }
  if (t.kind === 'other_key') {
    // Same key id as the real key: only the signature can tell them apart.
    const { privateKey } = await generateKeyPair('RS256')
    return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: jwk.kid }).sign(privateKey)
  }
  const key = await importJWK(jwk, 'RS256')
  return new SignJWT({ ...claims, ...t.set }).setProtectedHeader({ alg: 'RS256', kid: jwk.kid }).sign(key)
}

/** A minimal browser: one cookie jar for the provider's origin, redirects followed by hand. */
async function driveSignIn(issuer: string, start: string, account: string): Promise<URL> {
  const jar = new Map<string, string>()
  let url = new URL(start)
  for (let hop = 0; hop < 10; hop++) {
    if (url.origin !== new URL(issuer).origin) return url
    const interaction = /^\/interaction\/([^/]+)$/.exec(url.pathname)
    if (interaction) url = new URL(`${url.pathname}/login?account=${encodeURIComponent(account)}`, url)
    const res = await fetch(url, { redirect: 'manual', headers: { cookie: cookieHeader(jar) } })
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';')
      const i = pair!.indexOf('=')
      const name = pair!.slice(0, i)
      const value = pair!.slice(i + 1)
      if (/max-age=0|expires=thu, 01 jan 1970/i.test(c)) jar.delete(name)
      else jar.set(name, value)
    }
    const location = res.headers.get('location')
    if (!location)
      throw new Error(`the provider stopped at ${url.pathname} with ${res.status}: ${await res.text()}`)
    url = new URL(location, url)
  }
  throw new Error('too many redirects at the provider')
}

function cookieHeader(jar: Map<string, string>): string {
  return [...jar].map(([k, v]) => `${k}=${v}`).join('; ')
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  )
}
