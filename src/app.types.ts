// The shape of the application createApp builds (src/app.ts): what it is made from, what it
// answers, and how a process starts and stops it.
import type { Engine } from './features/engine/engine.service'
import type { IngestService } from './features/ingest/ingest.service'
import type { LegalService } from './features/legal/legal.service'
import type { McpService } from './features/mcp/mcp.service'
import type { OnboardingService } from './features/onboarding/onboarding.service'
import type { ScaleService } from './features/scale/scale.service'
import type { Clock } from './platform/clock/clock'
import type { Config } from './platform/config/config.load'
import type { Random } from './platform/crypto/random'
import type { Db } from './platform/db/db'
import type { Store } from './platform/db/store'
import type { Dispatcher } from './platform/events/dispatcher'
import type { Outbox } from './platform/events/outbox'
import type { RouteDef } from './platform/http/route'
import type { PeerSource } from './platform/http/server'
import type { JobQueue } from './platform/jobs/queue'
import type { Scheduler } from './platform/jobs/scheduler'
import type { Logger } from './platform/log/log'
import type { ObjectStore } from './platform/storage/object-store'

/** Everything the application is built from; nothing is reached through globals. */
export interface AppDeps {
  config: Config
  /**
   * The SQLite database: where the engine keeps its passage index (FTS5 and its own tables), and,
   * unless `store` is given, the state of every other feature too.
   */
  db: Db
  /**
   * Where the features keep their state (docs/data-layer.md): a PostgreSQL store
   * (`ENGRAM_DATABASE_URL`), or by default the store of `db`.
   */
  store?: Store
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

/** How a process runs the app: `engram serve` all of it, `engram mcp` its events, tests neither. */
export interface StartOptions {
  /** Where this process's HTTP server answers, as the process itself reaches it (the scale test loads it). */
  url?: string
  /** Run the job queue, and the start-up work that queues jobs or cleans the data dir. */
  jobs?: boolean
  /** Deliver domain events on a timer; tests deliver them by hand (`events.dispatcher.drain()`). */
  events?: boolean
}

/** The services the CLI, tests and benchmarks call directly rather than over HTTP. */
export interface AppServices {
  /** `engram mcp` serves its tools over stdio. */
  mcp: McpService
  /** The answer engine (benchmarks read its warm cache). */
  engine: Engine
  /** Ingest (its orphan sweep, which `start` runs in the background). */
  ingest: IngestService
  /** Onboarding (its embedding of bases without vectors, which `start` queues). */
  onboarding: OnboardingService
  /** Legal acceptance (billing will gate checkout on `firstUnaccepted`; tests call it). */
  legal: LegalService
  /** Scale tests (tests wait for those running to settle). */
  scale: ScaleService
}

/** The built application: a fetch-style handler plus what tests and tools inspect. */
export interface App {
  /** Answers one request; Bun passes its server, which tells the socket peer. */
  handle(request: Request, server?: PeerSource): Promise<Response>
  routes: RouteDef[]
  openapi(): Record<string, unknown>
  /** The durable job queue and its scheduler (started by `start`, stepped by tests). */
  jobs: { queue: JobQueue; scheduler: Scheduler }
  /** The domain events' outbox and dispatcher (started by `start`, stepped by tests). */
  events: { outbox: Outbox; dispatcher: Dispatcher }
  /** The data layer's one handle on either engine (db/store.ts); `stop` closes what it opened. */
  store: Store
  services: AppServices
  /** Starts the runners asked for, then every feature in list order; returns without waiting for background work. */
  start(options?: StartOptions): Promise<void>
  /** Stops the features in reverse list order, then the runners (each after the work it had in flight). */
  stop(): Promise<void>
}
