// The one shape every feature has. A feature's factory (`<feature>Feature(deps)` in
// `<feature>.feature.ts`) builds its service from what it is given and returns it with what the
// application must wire: its routes, its job handlers and its event subscribers. Nothing registers
// itself from a constructor; `createApp` lists the features and `install` wires them, so all the
// wiring of the application is in one place and reads in dependency order.
import type { Clock } from '../clock/clock'
import type { Random } from '../crypto/random'
import type { Db } from '../db/db'
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

/** What a feature's factory returns. */
export interface Feature<S = unknown> {
  /** The feature's face: other features use it through its methods only. */
  service: S
  /** Routes in the order they are mounted. */
  routes?: RouteDef[]
  /** Durable job kinds this feature runs. */
  jobs?: JobDefinition[]
  /** Domain events this feature reacts to (docs/events.md). */
  subscribers?: Subscriber[]
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
