// The HTTP side of the application from its route list: the shell (request ids, CORS, security
// headers, the error envelope), every route mounted with the conventions (auth, scopes, bodies,
// idempotency). The OpenAPI document of the same list is the service feature's (`/openapi.json`).

import type { AccessCheck, Authenticator } from '../auth/principal'
import type { Clock } from '../clock/clock'
import type { Config } from '../config/config.load'
import type { Random } from '../crypto/random'
import type { Store } from '../db/store'
import type { Logger } from '../log/log'
import { ClientAddresses } from './client-address'
import { IdempotencyStore } from './idempotency'
import { mountRoutes } from './mount'
import type { RouteDef } from './route'
import { createHttpShell, type PeerSource } from './server'

export interface HttpAppDeps {
  config: Pick<Config, 'server' | 'api'>
  /** Where idempotency records are kept (either engine). */
  store: Store
  clock: Clock
  random: Random
  log: Logger
  authenticate: Authenticator
  /** Refuses a principal's request by where it comes from (the workspace's IP allowlist). */
  admit?: AccessCheck
  /** The server's signing secret; it also keys the fingerprints of idempotent requests. */
  secret: string
}

export interface HttpApp {
  handle(request: Request, server?: PeerSource): Promise<Response>
}

/** Mounts `routes` behind the HTTP shell. */
export function createHttpApp(d: HttpAppDeps, routes: RouteDef[]): HttpApp {
  const { config } = d
  const shell = createHttpShell({
    random: d.random,
    log: d.log,
    frozenRemovalDate: config.api.frozen_removal_date,
    corsOrigins: config.server.cors_origins
      .split(',')
      .map((o) => o.trim())
      .filter((o) => o.length > 0),
  })
  mountRoutes(shell.router, routes, {
    maxBodyBytes: config.server.max_body_bytes,
    clients: new ClientAddresses({
      trustedProxies: config.server.trusted_proxies,
      trustPeer: config.server.trust_proxy,
      log: d.log,
    }),
    idempotency: new IdempotencyStore(d.store, d.clock, {
      ttlMs: config.api.idempotency_ttl_hours * 3_600_000,
      claimMs: config.api.idempotency_claim_seconds * 1000,
      secret: d.secret,
      // One HTTP app a process: its name owns the process's idempotency claims. Not drawn from
      // `random`, whose seeded stream gives the tests their ids (as NotifiedCommits.self).
      owner: `proc_${process.pid}_${crypto.randomUUID()}`,
    }),
    authenticate: d.authenticate,
    admit: d.admit,
  })
  return { handle: shell.handle }
}
