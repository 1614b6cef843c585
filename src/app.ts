import pkg from '../package.json'
import { accountsFeature } from './features/accounts/accounts.feature'
import { answersFeature } from './features/answers/answers.feature'
import { auditFeature } from './features/audit/audit.feature'
import { consoleFeature } from './features/console/console.feature'
import { corporaFeature } from './features/corpora/corpora.feature'
import { economicsFeature } from './features/economics/economics.feature'
import { engineFeature } from './features/engine/engine.feature'
import { ingestFeature } from './features/ingest/ingest.feature'
import { keysFeature } from './features/keys/keys.feature'
import { mcpFeature } from './features/mcp/mcp.feature'
import type { McpService } from './features/mcp/mcp.service'
import { membersFeature } from './features/members/members.feature'
import { onboardingFeature } from './features/onboarding/onboarding.feature'
import { platformInfoFeature } from './features/platform-info/platform-info.feature'
import { scaleFeature } from './features/scale/scale.feature'
import { serviceFeature } from './features/service/service.feature'
import { sourcesFeature } from './features/sources/sources.feature'
import { statusFeature } from './features/status/status.feature'
import { usageFeature } from './features/usage/usage.feature'
import { workspacesFeature } from './features/workspaces/workspaces.feature'
import type { Clock } from './platform/clock/clock'
import type { Config } from './platform/config/config.load'
import type { Random } from './platform/crypto/random'
import type { Db } from './platform/db/db'
import type { Dispatcher } from './platform/events/dispatcher'
import type { Outbox } from './platform/events/outbox'
import { type Feature, install } from './platform/feature/feature'
import { createHttpApp } from './platform/http/http-app'
import type { RouteDef } from './platform/http/route'
import type { PeerSource } from './platform/http/server'
import type { JobQueue } from './platform/jobs/queue'
import type { Scheduler } from './platform/jobs/scheduler'
import type { Logger } from './platform/log/log'
import { createRuntime, type Runtime } from './platform/runtime/runtime'
import type { ObjectStore } from './platform/storage/object-store'

/** Everything the application is built from; nothing is reached through globals. */
export interface AppDeps {
  config: Config
  db: Db
  clock: Clock
  random: Random
  log: Logger
  /** The token-signing secret (configured or generated into the data dir). */
  secret: string
  /** Where raw files, text sidecars and cartridges live. */
  objects: ObjectStore
  /** Extra routes mounted with the product's own; tests use this to exercise the conventions. */
  extraRoutes?: RouteDef[]
}

/** The built application: a fetch-style handler plus what tests and tools inspect. */
export interface App {
  /** Answers one request; Bun passes its server, which tells the socket peer. */
  handle(request: Request, server?: PeerSource): Promise<Response>
  routes: RouteDef[]
  openapi(): Record<string, unknown>
  /** The durable job queue and its scheduler (started by `serve`, stepped by tests). */
  jobs: { queue: JobQueue; scheduler: Scheduler }
  /** The domain events' outbox and dispatcher (started by `serve`, stepped by tests). */
  events: { outbox: Outbox; dispatcher: Dispatcher }
  /** Memory held by warm cartridge copies (benchmarks and status). */
  engineStats(): { warmBytes: number; warmCartridges: number }
  /** The agent surface's service; `engram mcp` serves its tools over stdio from it. */
  mcp: McpService
  /** Tells the app where its HTTP server listens (the scale test loads the server through it). */
  listening(url: string): void
  /** Start-up work that would otherwise fall on the first question; `serve` and `mcp` call it once ready. */
  prepare(): void
  /** Start-up housekeeping `serve` runs: removes stored objects no row references. */
  sweepOrphans(): Promise<{ removed: number; uploadsExpired: number }>
  /**
   * Start-up work `serve` runs: queues embedding for bases with passages that have no vector from
   * the configured model (an embeddings server or the built-in vectors); returns how many bases.
   */
  embedMissing(): number
}

export const VERSION: string = pkg.version

/**
 * Composes the features into one app: the runtime, the features (composeFeatures), and `install`,
 * which registers their jobs and subscribers and hands their routes to the HTTP app. Pure: opens
 * nothing, starts nothing, listens nowhere.
 */
export function createApp(deps: AppDeps): App {
  const runtime = createRuntime(deps)
  let selfUrl: string | null = null
  const f = composeFeatures(deps, runtime, { openapi: () => http.openapi(), selfUrl: () => selfUrl })
  const routes = [...install(f.mountOrder, runtime), ...(deps.extraRoutes ?? [])]
  const http = createHttpApp({ ...deps, authenticate: f.accounts.authenticate, info: INFO }, routes)
  const engine = f.engine.service
  return {
    handle: http.handle,
    routes,
    openapi: http.openapi,
    jobs: { queue: runtime.platform.queue, scheduler: runtime.scheduler },
    events: { outbox: runtime.platform.events, dispatcher: runtime.dispatcher },
    engineStats: () => ({ warmBytes: engine.cache.bytes, warmCartridges: engine.cache.size }),
    mcp: f.mcp.service,
    listening: (url) => {
      selfUrl = url.replace(/\/+$/, '')
    },
    prepare: () => void engine.prepare(),
    sweepOrphans: () => f.ingest.service.sweepOrphans(),
    embedMissing: () => f.onboarding.service.embedMissing(),
  }
}

/**
 * Builds every feature in dependency order, each from the platform, its config slice and the
 * services of those before it. `late` holds what exists only once the app is assembled.
 */
function composeFeatures(
  deps: AppDeps,
  { platform: p, mailer }: Runtime,
  late: { openapi: () => Record<string, unknown>; selfUrl: () => string | null },
) {
  const { config } = deps
  const { frozen_removal_date: frozenRemovalDate } = config.api
  const service = serviceFeature({ version: VERSION, frozenRemovalDate, openapi: late.openapi })
  const console = consoleFeature()
  const workspaces = workspacesFeature(p)
  const audit = auditFeature(p)
  const keys = keysFeature(p)
  const people = { config, mailer, workspaces: workspaces.service }
  const accounts = accountsFeature({
    ...p,
    ...people,
    secret: deps.secret,
    keys: keys.service,
    audit: audit.service,
  })
  const members = membersFeature({ ...p, ...people, accounts: accounts.service })
  const engine = engineFeature({ ...p, config: config.engine, embed: config.embed })
  // Deleting documents purges ingest's objects, then the engine's index, before it answers; its
  // receipt says whether a build is running. Both are asked at delete time (built below).
  const corpora = corporaFeature({
    ...p,
    audit: audit.service,
    purgers: () => [ingest.purger, engine.purger],
    buildRunning: (ws, id) => onboarding.service.inFlight(ws, id) !== null,
  })
  const uses = { corpora: corpora.service, engine: engine.service }
  const ingest = ingestFeature({ ...p, config: config.ingest, corpora: corpora.service })
  const sources = sourcesFeature({
    ...p,
    config: config.sources,
    storage: config.storage,
    maxFileBytes: config.ingest.max_file_bytes,
    secret: deps.secret,
    corpora: corpora.service,
    ingest: ingest.service,
  })
  const onboarding = onboardingFeature({ ...p, ...uses })
  const usage = usageFeature({ ...p, ...uses, accounts: accounts.service, keys: keys.service })
  const answers = answersFeature({ ...p, ...uses, llm: config.llm, engineLimits: config.engine })
  const asks = { corpora: corpora.service, answers: answers.service }
  const mcp = mcpFeature({ ...p, ...asks, version: VERSION, maxBodyBytes: config.server.max_body_bytes })
  const economics = economicsFeature({
    ...p,
    ...uses,
    ...asks,
    onboarding: onboarding.service,
    rates: config.rates,
  })
  const scale = scaleFeature({
    ...p,
    ...asks,
    economics: economics.service,
    selfUrl: late.selfUrl,
    config: config.scale_test,
  })
  const status = statusFeature({ ...p, config: config.status, version: VERSION, mailer })
  const platformInfo = platformInfoFeature({ config, version: VERSION, ingest: ingest.service })
  // The service's own pages, the console, then the API in the order the spec lists it.
  const mountOrder: Feature[] = [service, console, corpora, ingest, sources, onboarding, answers, economics]
  mountOrder.push(scale)
  mountOrder.push(mcp, accounts, members, keys, usage, status, platformInfo, workspaces, audit, engine)
  return { mountOrder, accounts, engine, ingest, onboarding, mcp }
}

const INFO = {
  title: 'Engram',
  version: VERSION,
  description: 'Self-hosted document question-answering control plane.',
}
