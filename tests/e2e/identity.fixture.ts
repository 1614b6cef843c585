import { expect } from 'bun:test'
import { type TestApp, testApp } from '../helpers/app'
import { type ProviderAccount, startProvider, type TestProvider } from '../helpers/oidc-provider'

// Google sign-in end to end: Engram served over real HTTP on loopback, and a real OpenID provider
// (oidc-provider) on loopback playing Google. Tests drive the browser's side by hand: manual-redirect
// fetches carrying the cookies each origin set.

export const CLIENT_ID = 'engram-test-client.apps.googleusercontent.com'
export const CLIENT_SECRET = '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-0123'

/** An Engram server on loopback with Google pointed at the test provider. */
export interface Engram {
  app: TestApp
  base: string
  stop(): void
}

/** The servers of a test file: one provider, and one Engram per set of settings. */
export interface Stage {
  op: TestProvider
  engrams: Engram[]
  stop(): Promise<void>
}

/** Starts the provider with these accounts and one Engram per environment given. */
export async function stage(
  accounts: Record<string, ProviderAccount>,
  envs: Record<string, string>[],
): Promise<Stage> {
  // The servers listen first, so the provider can be told every redirect URI before it starts.
  const handlers: ((r: Request) => Promise<Response>)[] = []
  const servers = envs.map((_, i) =>
    Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: (r) =>
        handlers[i] ? handlers[i]!(r) : Promise.resolve(new Response('starting', { status: 503 })),
    }),
  )
  const bases = servers.map((s) => `http://127.0.0.1:${s.port}`)
  const op = await startProvider({
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        redirect_uris: bases.map((b) => `${b}/v1/auth/google/callback`),
      },
    ],
    accounts,
  })
  const engrams = envs.map((env, i) => {
    const app = testApp({
      env: {
        ENGRAM_BASE_URL: bases[i]!,
        ENGRAM_GOOGLE_ISSUER: op.issuer,
        ENGRAM_GOOGLE_CLIENT_ID: CLIENT_ID,
        ENGRAM_GOOGLE_CLIENT_SECRET: CLIENT_SECRET,
        ...env,
      },
      seed: 100 + i,
    })
    // ID tokens carry the provider's real time; Engram's clock starts there too.
    app.clock.set(new Date())
    handlers[i] = (r) => app.handle(r, servers[i])
    return {
      app,
      base: bases[i]!,
      stop() {
        servers[i]!.stop(true)
        app.close()
      },
    }
  })
  return {
    op,
    engrams,
    async stop() {
      for (const e of engrams) e.stop()
      await op.stop()
    },
  }
}

/** The start of a sign-in in one browser: where Google is, and the flow cookie Engram set. */
export interface Started {
  authorizationUrl: string
  cookie: string
  setCookie: string
}

/** `GET /auth/google/login` as a browser: a redirect to the provider and the flow cookie. */
export async function startLogin(e: Engram, mount = ''): Promise<Started> {
  const res = await fetch(`${e.base}${mount}/auth/google/login`, { redirect: 'manual' })
  expect(res.status).toBe(302)
  const setCookie = res.headers.get('set-cookie') ?? ''
  return { authorizationUrl: res.headers.get('location')!, cookie: setCookie.split(';')[0]!, setCookie }
}

/** Where the callback sent the browser: the location, its fragment or query, and the cookie it set. */
export interface Landed {
  status: number
  location: URL
  fragment: URLSearchParams
  error: string | null
  setCookie: string
}

/** Follows the provider's redirect back to Engram's callback, with the given cookie (or none). */
export async function land(callbackUrl: URL, cookie: string | null): Promise<Landed> {
  const res = await fetch(callbackUrl, { redirect: 'manual', headers: cookie ? { cookie } : {} })
  const location = new URL(res.headers.get('location') ?? 'http://missing/')
  return {
    status: res.status,
    location,
    fragment: new URLSearchParams(location.hash.slice(1)),
    error: location.searchParams.get('error'),
    setCookie: res.headers.get('set-cookie') ?? '',
  }
}

/** A whole sign-in as `account` in one browser, landing back at Engram. */
export async function signInWithGoogle(s: Stage, e: Engram, account: string): Promise<Landed> {
  const started = await startLogin(e)
  const back = await s.op.signIn(started.authorizationUrl, account)
  return land(back, started.cookie)
}

/** Counts of the rows a sign-in may write. */
export async function rowCounts(
  app: TestApp,
): Promise<{ workspaces: number; users: number; identities: number }> {
  const n = async (t: string) => (await app.sql.get<{ n: number }>(`SELECT count(*) AS n FROM ${t}`))!.n
  return {
    workspaces: await n('workspaces'),
    users: await n('users'),
    identities: await n('user_identities'),
  }
}

/** The audit actions recorded, oldest first, with their details. */
export function auditRows(app: TestApp): Promise<{ action: string; details: string | null }[]> {
  // The order they were written in (the clock stands still, and `seq` counts per workspace): SQLite's
  // rowid; on PostgreSQL the row's place in the table, as audit rows are only ever inserted.
  const written = app.sql.engine === 'postgres' ? 'ctid' : 'rowid'
  return app.sql.all<{ action: string; details: string | null }>(
    `SELECT action, details FROM audit_events ORDER BY ${written}`,
  )
}
