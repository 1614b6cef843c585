// The platform's running parts, built once per app: the durable job queue and its scheduler, the
// domain events' outbox and dispatcher, the mailer, and what every feature is given (`Platform`). Pure like
// createApp: nothing starts here; the app's `start` starts the scheduler and dispatcher, tests step them.
import { hostname } from 'node:os'
import { join, resolve } from 'node:path'
import pkg from '../../../package.json'
import { type Clock, systemClock } from '../clock/clock'
import type { Config } from '../config/config.load'
import { newId, type Random } from '../crypto/random'
import { CheckpointThread } from '../db/checkpoints'
import { databaseNow } from '../db/database-now'
import type { Db } from '../db/db'
import { type Store, sqliteStore } from '../db/store'
import type { PostgresStore } from '../db/store.postgres'
import { createMailer, type Mailer } from '../email/email'
import { Dispatcher } from '../events/dispatcher'
import { Outbox } from '../events/outbox'
import type { Platform } from '../feature/feature'
import { ClockCheck } from '../jobs/clock-check'
import { AdvisoryOwnerLocks, type OwnerLiveness, OwnerLocks } from '../jobs/owner-locks'
import { JobQueue } from '../jobs/queue'
import { Scheduler } from '../jobs/scheduler'
import type { Logger } from '../log/log'
import { ReplicaRegistry } from '../replicas/replicas'
import { eventsOwner, ReplicasRepo } from '../replicas/replicas.repo'
import { EnvelopeStore } from '../storage/envelope-store'
import type { ObjectStore } from '../storage/object-store'

export interface RuntimeDeps {
  config: Pick<Config, 'jobs' | 'data' | 'email'>
  db: Db
  /** The features' store (PostgreSQL, or by default `db`'s). */
  store?: Store
  clock: Clock
  /**
   * Whether the runners compare `clock` with the database's (on PostgreSQL) before claiming; by
   * default when it is the system's: a manual clock is a test's, set to any date on purpose.
   */
  checkClock?: boolean
  random: Random
  log: Logger
  objects: ObjectStore
}

export interface Runtime {
  platform: Platform
  scheduler: Scheduler
  dispatcher: Dispatcher
  /** Outgoing email (disabled by default: links are then returned in responses). */
  mailer: Mailer
  /** The object store features are given, sealing content under workspace keys once one is installed. */
  envelope: EnvelopeStore
  /** Starts the runners asked for: the scheduler with `jobs` (and WAL checkpoints on a thread), the dispatcher with `events`. */
  start(o: { jobs: boolean; events: boolean }): void
  /** Stops the runners, the scheduler first, each once the work it had in flight has settled. */
  stop(): Promise<void>
}

/**
 * The process's row in the replicas registry (while it runs jobs or events, on either engine), and
 * its runners' owner locks: each runner holds its own (one holds one owner's), lock files of the data
 * dir on SQLite, advisory locks on PostgreSQL, which tell processes on every machine on the database
 * (an owner is dead when its lock is free and its process has a registry row).
 */
function fleet(d: RuntimeDeps, store: Store, owner: string) {
  const { clock, log } = d
  const replicas = new ReplicasRepo(store, clock)
  const self = { owner, host: hostname(), pid: process.pid, build: pkg.version }
  return {
    registry: new ReplicaRegistry({ repo: replicas, clock, log, self }),
    owners: (): OwnerLiveness =>
      store.dialect === 'postgres'
        ? new AdvisoryOwnerLocks(store as PostgresStore, { registry: replicas, log })
        : new OwnerLocks(join(resolve(d.config.data.dir), 'run')),
  }
}

/** Builds the job queue, the outbox and their runners over one database. */
export function createRuntime(d: RuntimeDeps): Runtime {
  const { db, clock, random, log } = d
  const jobs = d.config.jobs
  const store = d.store ?? sqliteStore(db)
  const queue = new JobQueue(db, clock, random, store)
  // One owner name per process; its lock file tells other processes on the data dir when it ended.
  const owner = `proc_${process.pid}_${newId(random, 'w')}`
  const { registry, owners } = fleet(d, store, owner)
  const leaseMs = jobs.lease_seconds * 1000
  // One check serves both runners: one `SELECT now()` an hour.
  const clockCheck =
    (d.checkClock ?? clock === systemClock)
      ? new ClockCheck({ clock, log, leaseMs, databaseNow: () => databaseNow(store) })
      : undefined
  const scheduler = new Scheduler({
    queue,
    clock,
    log,
    workers: jobs.workers,
    // 0 leaves one slot that a single workspace can never take.
    workspaceSlots: jobs.workspace_slots || Math.max(1, jobs.workers - 1),
    interactiveSlots: jobs.interactive_slots,
    leaseMs,
    pollMs: jobs.poll_ms,
    owner,
    owners: owners(),
    clockCheck,
  })
  queue.onEnqueue(() => scheduler.poke())
  // Domain events share the job queue's lease and poll settings; the dispatcher's owner (and lock
  // file) is the scheduler's with a suffix, so either can be told dead on its own.
  const events = new Outbox(db, clock, random, store)
  events.onLaterFailure((error, n) =>
    log.error('events told after an answer were not written', { error, events: n }),
  )
  const dispatcher = new Dispatcher({
    outbox: events,
    clock,
    log,
    leaseMs,
    pollMs: jobs.poll_ms,
    owner: eventsOwner(owner),
    owners: owners(),
    clockCheck,
  })
  const mailer = createMailer({ transport: d.config.email.transport, from: d.config.email.from, log })
  // Every feature reads and writes objects through the envelope; the kms feature installs its keys.
  const envelope = new EnvelopeStore(d.objects)
  // WAL checkpoints off the serving connection, so no question waits for one (db/checkpoints.ts).
  const checkpoints = new CheckpointThread(db.$client, {
    onError: (error) => log.warn('a WAL checkpoint failed', { error }),
  })
  return {
    platform: { db, store, clock, random, log, objects: envelope, queue, events },
    scheduler,
    dispatcher,
    mailer,
    envelope,
    start(o) {
      if (o.jobs || o.events) void registry.start()
      if (o.jobs) scheduler.start()
      if (o.jobs) checkpoints.start()
      if (o.events) dispatcher.start()
    },
    // Stopping a runner that never started does nothing (its lock is released only if held).
    async stop() {
      await scheduler.stop()
      await dispatcher.stop()
      await registry.stop()
      await checkpoints.stop()
      await events.settled()
      await store.close()
    },
  }
}
