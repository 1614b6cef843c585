import { join, resolve } from 'node:path'
import pkg from '../package.json'
import { accountsRoutes } from './features/accounts/accounts.routes'
import { AccountsService } from './features/accounts/accounts.service'
import { createAuthenticator, SessionService } from './features/accounts/accounts.sessions'
import { answersRoutes } from './features/answers/answers.routes'
import { AnswersService } from './features/answers/answers.service'
import { AuditService } from './features/audit/audit.service'
import { auditSubscriber } from './features/audit/audit.subscribers'
import { consoleRoutes } from './features/console/console.routes'
import { corporaRoutes } from './features/corpora/corpora.routes'
import { CorporaService } from './features/corpora/corpora.service'
import { economicsRoutes } from './features/economics/economics.routes'
import { cartridgeFootprint, EconomicsService } from './features/economics/economics.service'
import { BUILTIN_MODEL, embedderFrom } from './features/engine/embedder'
import { Engine } from './features/engine/engine.service'
import { CompileThreads } from './features/engine/lib/compile-threads'
import { registerIngestJobs } from './features/ingest/ingest.jobs'
import { ingestRoutes } from './features/ingest/ingest.routes'
import { IngestService } from './features/ingest/ingest.service'
import { keysRoutes } from './features/keys/keys.routes'
import { KeysService } from './features/keys/keys.service'
import { mcpRoutes } from './features/mcp/mcp.routes'
import { McpService } from './features/mcp/mcp.service'
import { membersRoutes } from './features/members/members.routes'
import { MembersService } from './features/members/members.service'
import { onboardingRoutes } from './features/onboarding/onboarding.routes'
import { OnboardingService } from './features/onboarding/onboarding.service'
import { scaleRoutes } from './features/scale/scale.routes'
import { ScaleService } from './features/scale/scale.service'
import { serviceRoutes } from './features/service/service.routes'
import { statusRoutes } from './features/status/status.routes'
import { databaseProbe, StatusService } from './features/status/status.service'
import { usageRoutes } from './features/usage/usage.routes'
import { UsageService } from './features/usage/usage.service'
import { WorkspacesService } from './features/workspaces/workspaces.service'
import type { Clock } from './platform/clock/clock'
import { Gate } from './platform/concurrency/gate'
import type { Config } from './platform/config/config.load'
import { newId, type Random } from './platform/crypto/random'
import { SessionTokens } from './platform/crypto/token'
import type { Db } from './platform/db/db'
import { createMailer } from './platform/email/email'
import { Dispatcher } from './platform/events/dispatcher'
import { Outbox } from './platform/events/outbox'
import { IdempotencyStore } from './platform/http/idempotency'
import { mountRoutes } from './platform/http/mount'
import { buildOpenApi } from './platform/http/openapi'
import type { RouteDef } from './platform/http/route'
import { createHttpShell, type PeerSource } from './platform/http/server'
import { OwnerLocks } from './platform/jobs/owner-locks'
import { JobQueue } from './platform/jobs/queue'
import { Scheduler } from './platform/jobs/scheduler'
import { createLlmClient } from './platform/llm/openai-client'
import type { Logger } from './platform/log/log'
import { RateLimiter } from './platform/rate-limit/rate-limit'
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

/** Composes the feature plugins into one app. Pure: opens nothing, starts nothing, listens nowhere. */
export function createApp(deps: AppDeps): App {
  const { config } = deps
  const shell = createHttpShell({
    random: deps.random,
    log: deps.log,
    frozenRemovalDate: config.api.frozen_removal_date,
    corsOrigins: config.server.cors_origins
      .split(',')
      .map((o) => o.trim())
      .filter((o) => o.length > 0),
  })

  const { db, clock, random } = deps
  const queue = new JobQueue(db, clock, random)
  const owner = `proc_${process.pid}_${newId(random, 'w')}`
  const scheduler = new Scheduler({
    queue,
    clock,
    log: deps.log,
    workers: config.jobs.workers,
    leaseMs: config.jobs.lease_seconds * 1000,
    pollMs: config.jobs.poll_ms,
    owner,
    owners: new OwnerLocks(join(resolve(config.data.dir), 'run')),
  })
  queue.onEnqueue(() => scheduler.poke())
  // Domain events share the job queue's lease and poll settings; the dispatcher's owner (and lock
  // file) is the scheduler's with a suffix, so either can be told dead on its own.
  const outbox = new Outbox(db, clock, random)
  const dispatcher = new Dispatcher({
    outbox,
    clock,
    log: deps.log,
    leaseMs: config.jobs.lease_seconds * 1000,
    pollMs: config.jobs.poll_ms,
    owner: `${owner}_events`,
    owners: new OwnerLocks(join(resolve(config.data.dir), 'run')),
  })
  const a = config.accounts
  const sessionTokens = new SessionTokens(deps.secret, {
    normal: a.session_hours * 3600,
    remember: a.remember_days * 86_400,
    cap: a.session_cap_days * 86_400,
  })
  const mailer = createMailer({ transport: config.email.transport, from: config.email.from, log: deps.log })
  const limiter = new RateLimiter(clock, config.security.rate_limits === 'on')
  const audit = new AuditService(db, clock, random)
  const workspaces = new WorkspacesService(db, clock, random)
  const accounts = new AccountsService({
    db,
    clock,
    random,
    config,
    mailer,
    limiter,
    sessions: sessionTokens,
    workspaces,
    audit,
    log: deps.log,
  })
  const sessions = new SessionService(db, clock, sessionTokens)
  const keys = new KeysService(db, clock, random, outbox)
  dispatcher.subscribe(auditSubscriber(audit))
  const members = new MembersService({
    db,
    clock,
    random,
    config,
    mailer,
    accounts,
    workspaces,
    events: outbox,
  })
  const usage = new UsageService(db, clock, {
    members: (ws) => accounts.workspaceUsers(ws).length,
    activeKeys: (ws) => keys.activeCount(ws),
    // Documents and stored bytes from the bases' counters, plus their cartridges (sizes still
    // unknown, of cartridges made before sizes were recorded, are asked of the store once).
    bases: async (ws) => {
      await engine.measureCarts(async (key) => (await deps.objects.head(key))?.size ?? null)
      return corpora.usage(ws).map((b) => ({ ...b, storageBytes: b.storageBytes + engine.cartBytes(b.id) }))
    },
  })
  const status = new StatusService(config, clock, VERSION, [
    databaseProbe(db),
    {
      name: 'email',
      check: () =>
        mailer.enabled
          ? { status: 'operational' }
          : { status: 'disabled', detail: 'links returned in responses' },
    },
  ])
  const authenticate = createAuthenticator(sessions, (secret) => keys.authenticate(secret))

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
  const corpora = new CorporaService({ db, clock, random, log: deps.log, audit })
  const ingest = new IngestService({
    db,
    clock,
    random,
    log: deps.log,
    config: config.ingest,
    objects: deps.objects,
    corpora,
    queue,
  })
  registerIngestJobs(scheduler, ingest.extraction)

  const threads = config.engine.compile_threads
  const embedder = embedderFrom(config.embed, clock, deps.log)
  const compiler =
    threads > 0
      ? new CompileThreads({
          threads,
          staticVectors: embedder?.model === BUILTIN_MODEL,
          onFallback: (reason) =>
            deps.log.warn('cartridges now compile in process: a compile thread failed', { reason }),
        })
      : null
  const engine = new Engine({
    db,
    store: deps.objects,
    cacheBytes: config.engine.warm_cache_mb * 1024 * 1024,
    compile: compiler ? (text) => compiler.compile(text) : undefined,
    embedder,
  })
  const onboarding = new OnboardingService({
    db,
    clock,
    log: deps.log,
    queue,
    scheduler,
    objects: deps.objects,
    corpora,
    engine,
  })
  // Deleted documents leave the index and the cartridges (warm copy first) before the delete answers.
  corpora.addPurger({
    purgeDocuments: async (_ws, _corpusId, rows) => {
      for (const r of rows) await engine.removeSection(r.id)
    },
    purgeCorpus: async (ws, corpusId) => {
      await engine.removeBase(corpusId)
      queue.deleteBySubject(ws, corpusId)
    },
  })
  const llm = config.llm.url
    ? createLlmClient({
        url: config.llm.url,
        model: config.llm.model ?? 'default',
        apiKey: config.llm.api_key,
        timeoutMs: config.llm.timeout_ms,
      })
    : null
  const answers = new AnswersService({
    db,
    clock,
    random,
    corpora,
    engine,
    recordQuery: (ws, corpusId) => usage.recordQueries(ws, corpusId),
    llm,
    strict: config.llm.strict,
    log: deps.log,
    gate: new Gate(config.engine.max_concurrent, config.engine.max_queued),
  })
  const mcp = new McpService({ corpora, answers, objects: deps.objects })

  const economics = new EconomicsService({
    random,
    corpora,
    answers,
    onboarding,
    objects: deps.objects,
    footprint: (baseId) =>
      cartridgeFootprint(engine, async (key) => (await deps.objects.head(key))?.size ?? null, baseId),
    rates: config.rates,
  })
  // Where this process listens, once `serve` (or a test or benchmark) says so.
  let selfUrl: string | null = null
  const scale = new ScaleService({
    db,
    clock,
    random,
    corpora,
    answers,
    economics,
    selfUrl: () => selfUrl,
    limits: {
      maxSeconds: config.scale_test.max_seconds,
      maxRequestsPerLevel: config.scale_test.max_requests_per_level,
    },
  })

  const routes: RouteDef[] = [
    ...serviceRoutes({ version: VERSION, frozenRemovalDate: config.api.frozen_removal_date, openapi }),
    ...consoleRoutes(),
    ...corporaRoutes(corpora),
    ...ingestRoutes(ingest, {
      maxRequestBytes: config.ingest.max_request_bytes,
      maxJsonBytes: config.ingest.max_json_bytes,
    }),
    ...onboardingRoutes(onboarding),
    ...answersRoutes(answers),
    ...economicsRoutes(economics),
    ...scaleRoutes(scale),
    ...mcpRoutes(mcp, { version: VERSION, maxBodyBytes: config.server.max_body_bytes, log: deps.log }),
    ...accountsRoutes(accounts, sessions, keys, config),
    ...membersRoutes(members),
    ...keysRoutes(keys),
    ...usageRoutes(usage),
    ...statusRoutes(status),
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
    jobs: { queue, scheduler },
    events: { outbox, dispatcher },
    engineStats: () => ({ warmBytes: engine.cache.bytes, warmCartridges: engine.cache.size }),
    mcp,
    listening: (url) => {
      selfUrl = url.replace(/\/+$/, '')
    },
    prepare: () => engine.prepare(),
    sweepOrphans: () => ingest.sweepOrphans(),
    embedMissing: () => onboarding.embedMissing(),
  }
}
