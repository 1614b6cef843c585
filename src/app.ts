import pkg from '../package.json'
import { corporaRoutes } from './features/corpora/corpora.routes'
import { CorporaService } from './features/corpora/corpora.service'
import { serviceRoutes } from './features/service/service.routes'
import type { Clock } from './platform/clock/clock'
import type { Config } from './platform/config/config.load'
import type { Random } from './platform/crypto/random'
import type { Db } from './platform/db/db'
import { fail } from './platform/http/errors'
import { IdempotencyStore } from './platform/http/idempotency'
import { type Authenticator, mountRoutes } from './platform/http/mount'
import { buildOpenApi } from './platform/http/openapi'
import type { RouteDef } from './platform/http/route'
import { createHttpShell } from './platform/http/server'
import type { Logger } from './platform/log/log'

/** Everything the application is built from; nothing is reached through globals. */
export interface AppDeps {
  config: Config
  db: Db
  clock: Clock
  random: Random
  log: Logger
  /** The token-signing secret (configured or generated into the data dir). */
  secret: string
  /** Extra routes mounted with the product's own; tests use this to exercise the conventions. */
  extraRoutes?: RouteDef[]
}

/** The built application: a fetch-style handler plus what tests and tools inspect. */
export interface App {
  handle(request: Request): Promise<Response>
  routes: RouteDef[]
  openapi(): Record<string, unknown>
}

export const VERSION: string = pkg.version

/** Composes the feature plugins into one app. Pure: opens nothing, starts nothing, listens nowhere. */
export function createApp(deps: AppDeps): App {
  const { config } = deps
  const shell = createHttpShell({
    random: deps.random,
    log: deps.log,
    frozenRemovalDate: config.api.frozen_removal_date,
  })

  // Until accounts land every credential is refused; protected routes still declare their needs.
  const authenticate: Authenticator = async () => {
    throw fail('unauthorized')
  }

  // Built on first request, from the final route list.
  let document: Record<string, unknown> | null = null
  const openapi = () => {
    document ??= buildOpenApi(routes, {
      title: 'Engram',
      version: VERSION,
      description: 'Self-hosted document question-answering control plane.',
    })
    return document
  }
  const corpora = new CorporaService({ db: deps.db, clock: deps.clock, random: deps.random })

  const routes: RouteDef[] = [
    ...serviceRoutes({ version: VERSION, frozenRemovalDate: config.api.frozen_removal_date, openapi }),
    ...corporaRoutes(corpora),
    ...(deps.extraRoutes ?? []),
  ]

  mountRoutes(shell.router, routes, {
    maxBodyBytes: config.server.max_body_bytes,
    trustProxy: config.server.trust_proxy,
    idempotency: new IdempotencyStore(deps.db, deps.clock, config.api.idempotency_ttl_hours * 3_600_000),
    authenticate,
  })

  return {
    handle: shell.handle,
    routes,
    openapi,
  }
}
