// The one shape every feature has. A feature's factory (`<feature>Feature(platform, deps)` in
// `<feature>.feature.ts`) builds its service from what it is given and returns it with what the
// application must wire: its routes, its job handlers, its event subscribers and its start-up hook.
// Nothing registers itself from a constructor; `createApp` lists the features in dependency order,
// `install` wires them and `startAll` / `stopAll` start them in that order and stop them in reverse,
// so all the wiring of the application is in one place and reads from the list.
import type { Clock } from '../clock/clock'
import type { Random } from '../crypto/random'
import type { Db } from '../db/db'
import type { Store } from '../db/store'
import type { Dispatcher, Subscriber } from '../events/dispatcher'
import type { Outbox } from '../events/outbox'
import type { RouteDef } from '../http/route'
import type { JobQueue } from '../jobs/queue'
import type { JobBudget, JobHandler, JobLane, Scheduler, SettledHook } from '../jobs/scheduler'
import type { Logger } from '../log/log'
import type { ObjectStore } from '../storage/object-store'

/** What the platform gives every feature: storage, time, randomness, logging, jobs and events. */
export interface Platform {
  db: Db
  /** The same database as one handle on either engine: async repositories and units of work (docs/data-layer.md). */
  store: Store
  clock: Clock
  random: Random
  log: Logger
  /** Raw files, text sidecars and cartridges. */
  objects: ObjectStore
  /** Durable jobs: features enqueue; their handlers are declared in `Feature.jobs`. */
  queue: JobQueue
  /** Domain events: emitted in the change's transaction (docs/events.md). */
  events: Outbox
}

/** A kind of durable job a feature runs, with the hook called once a job of it settles. */
export interface JobDefinition {
  kind: string
  run: JobHandler
  onSettled?: SettledHook
  /** `bulk` for work that can run for hours (syncs, imports): it never takes the interactive slots. */
  lane?: JobLane
  /** How long one job of the kind may run before it fails with the budget's message. */
  budget?: JobBudget
}

/** What a started feature is told about the process it runs in. */
export interface StartContext {
  /** Where this process's HTTP server answers, as this process reaches it; null when none listens. */
  url: string | null
  /**
   * Whether this process runs the job queue (`engram serve`): start-up work that queues jobs or
   * cleans the data dir belongs to it, not to `engram mcp` answering beside a running server.
   */
  jobs: boolean
}

/** What a feature's factory returns. */
export interface Feature<S = unknown> {
  /** The feature's folder under src/features (`platform-info`): how the composition names it. */
  name: string
  /** The feature's face: other features use it through its methods only. */
  service: S
  /** Routes in the order they are mounted. */
  routes?: RouteDef[]
  /** Durable job kinds this feature runs. */
  jobs?: JobDefinition[]
  /** Domain events this feature reacts to (docs/events.md). */
  subscribers?: Subscriber[]
  /**
   * Start-up work once the process serves: called after the features before it in the list have
   * started. It begins background work and returns; it does not wait for it.
   */
  start?(ctx: StartContext): void | Promise<void>
  /** Ends what `start` began; called after the features listed after it have stopped. */
  stop?(): void | Promise<void>
}

/** Wires a list of features: registers their jobs and subscribers, and returns their routes in order. */
export function install(
  features: readonly Feature[],
  into: { scheduler: Scheduler; dispatcher: Dispatcher },
): RouteDef[] {
  const routes: RouteDef[] = []
  for (const f of features) {
    for (const j of f.jobs ?? []) into.scheduler.register(j.kind, j.run, j)
    for (const s of f.subscribers ?? []) into.dispatcher.subscribe(s)
    routes.push(...(f.routes ?? []))
  }
  return routes
}

/**
 * The features in the order `names` gives (the order their routes are mounted in); every feature
 * must be named there, so a feature added to the list cannot be left unmounted by mistake.
 */
export function ordered(features: readonly Feature[], names: readonly string[]): Feature[] {
  const unnamed = features.filter((f) => !names.includes(f.name)).map((f) => f.name)
  if (unnamed.length > 0) throw new Error(`features missing from the mount order: ${unnamed.join(', ')}`)
  return [...features].sort((a, b) => names.indexOf(a.name) - names.indexOf(b.name))
}

/** Starts features in list order: each once the features it depends on (listed before it) have. */
export async function startAll(features: readonly Feature[], ctx: StartContext): Promise<void> {
  for (const f of features) await f.start?.(ctx)
}

/** Stops features in reverse list order: each before the features it depends on. */
export async function stopAll(features: readonly Feature[]): Promise<void> {
  for (const f of [...features].reverse()) await f.stop?.()
}
