import type { Clock } from '../clock/clock'
import type { ClockCheck } from '../jobs/clock-check'
import { holdOwner, type OwnerLiveness } from '../jobs/owner-locks'
import { defaultBackoff } from '../jobs/scheduler'
import type { Logger } from '../log/log'
import type { DomainEvent, EventType } from './events'
import type { Claimed, InlinePlan, Outbox, RunFailure } from './outbox'

/**
 * Reacts to events of the given types. Called at least once per event, after the change
 * committed; a subscriber that may be called twice for one event (a crash between its work and the
 * record of its delivery) keys what it writes by `event.id`. Throwing schedules a retry with
 * backoff; the workspace's later events wait for it.
 */
export interface Subscriber<T extends EventType = EventType> {
  /** Unique and stable: deliveries are recorded under it across restarts. */
  name: string
  types: readonly T[]
  handle(event: DomainEvent<T>): void | Promise<void>
  /**
   * Whether the subscriber has anything to do with the event (a read; docs/events.md): asked at
   * publish, in its unit (an event all the dispatcher's subscribers pass on is written delivered),
   * and before each delivery (one that passes is not handed it, and nothing is recorded).
   */
  takes?(event: DomainEvent<T>): boolean | Promise<boolean>
  /**
   * The subscriber only writes to this database: its work and the record of its delivery are then
   * committed in one unit of work, so it takes each event exactly once without keying its writes by
   * `event.id` (a counter can simply add). Its `handle` awaits nothing but the database (the unit's
   * rule, db/store.ts); one still on synchronous SQLite calls returns nothing.
   */
  transactional?: boolean
  /**
   * Stronger than `transactional`: the subscriber is applied in the emitter's own transaction, when
   * the event is written, so its work commits (or rolls back) with the change itself, exactly once
   * and with no delivery to make. It does not wait for its workspace's earlier events, so it is
   * only for work whose order does not matter (a counter). When every subscriber of an event is
   * inline, the event is written delivered.
   */
  inline?: boolean
}

export interface DispatcherOptions {
  outbox: Outbox
  clock: Clock
  log: Logger
  /** This process's lease owner name. */
  owner: string
  /** How long a claim lasts without a heartbeat. */
  leaseMs: number
  /** Poll interval of the production loop (it also picks up events a crashed process left). */
  pollMs: number
  /** Workspaces delivered to at once. */
  concurrency?: number
  /** Delay before delivery round number `attempt` (1-based) after a failure. */
  backoff?: (attempt: number) => number
  /** Tells owners whose process has ended, so their events resume without waiting for the lease. */
  owners?: OwnerLiveness
  /** How long delivered events are kept before pruning; default a week. */
  keepMs?: number
  /** Compares `clock` with the database's: while they differ, no event is claimed. */
  clockCheck?: ClockCheck
}

/**
 * Delivers the outbox's events to subscribers: for each workspace, its oldest undelivered event to
 * every subscriber of its type, and the next one only once all have taken it (a claim takes a
 * workspace's events in runs, RUN_EVENTS at most, and one unit settles each run). Workspaces proceed
 * independently, so a failing subscriber holds back only the workspace whose event it fails on.
 * Like the scheduler, `tick()` is one step, `start()` runs it on a timer and on `poke()`, and tests
 * step it by hand with a manual clock.
 */
export class Dispatcher {
  private readonly subscribers: Subscriber[] = []
  /** Each event type's inline plan (inlinePlan), made on its first publish; forgotten at each subscribe. */
  private readonly plans = new Map<EventType, InlinePlan>()
  /** Workspace id to its run of events in flight in this process. */
  private readonly running = new Map<string, { seqs: number[]; done: Promise<void> }>()
  private timer: ReturnType<typeof setInterval> | null = null
  /** The step running or last run (tick chains steps on it). */
  private stepping: Promise<unknown> = Promise.resolve()
  private poked = false
  private lastOwnerCheck = Number.NEGATIVE_INFINITY
  private lastPrune = Number.NEGATIVE_INFINITY
  private readonly backoff: (attempt: number) => number

  constructor(private readonly o: DispatcherOptions) {
    this.backoff = o.backoff ?? defaultBackoff
    o.outbox.onEmit(() => this.poke())
    o.outbox.applyInline((type) => this.inlinePlan(type))
  }

  /** Adds a subscriber; names must be unique. */
  subscribe<T extends EventType>(s: Subscriber<T>): void {
    if (this.subscribers.some((x) => x.name === s.name))
      throw new Error(`subscriber ${s.name} registered twice`)
    this.subscribers.push(s as unknown as Subscriber)
    this.plans.clear()
  }

  /**
   * One step: renews leases of deliveries in flight and starts delivering due workspace heads;
   * resolves to how many it started. Steps run one after another, never two at once.
   */
  tick(): Promise<number> {
    const step = this.stepping.then(() => this.step())
    this.stepping = step.catch(() => 0)
    return step
  }

  private async step(): Promise<number> {
    const { outbox, owner, leaseMs } = this.o
    await this.resumeDeadOwners()
    await this.pruneDelivered()
    await outbox.heartbeat(
      [...this.running.values()].flatMap((r) => r.seqs),
      owner,
      leaseMs,
    )
    // A clock off from the database's would take live leases for expired and write short ones;
    // while the owner lock is not held, another process may take this one for dead.
    if (!((await this.o.clockCheck?.ok()) ?? true) || !(this.o.owners?.holding?.() ?? true)) return 0
    const free = (this.o.concurrency ?? 4) - this.running.size
    const claimed = await outbox.claimRuns(owner, leaseMs, free, new Set(this.running.keys()))
    for (const run of claimed) {
      const ws = run[0]!.event.workspaceId
      const done = this.deliver(run)
        // The outbox's own writes failing (a closed or locked database): the leases expire and
        // the events are tried again; nothing to reject to.
        .catch((e) =>
          this.o.log.error('event delivery failed', {
            event_id: run[0]!.event.id,
            events: run.length,
            error: (e as Error).message,
          }),
        )
        .finally(() => {
          this.running.delete(ws)
          this.poke()
        })
      this.running.set(ws, { seqs: run.map((c) => c.seq), done })
    }
    return claimed.length
  }

  /** Resolves when every delivery in flight has settled. */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running.values()].map((r) => r.done))
  }

  /** Ticks until nothing due is left (events told `later` written first); for tests and the CLI. */
  async drain(): Promise<void> {
    await this.o.outbox.settled()
    for (;;) {
      // A delivery that ends while a step runs was skipped by it: only a step that began with none
      // in flight and started none says nothing is due.
      const busy = this.running.size
      const started = await this.tick()
      if (started === 0 && busy === 0 && this.running.size === 0) return
      if (this.running.size > 0) await Promise.race([...this.running.values()].map((r) => r.done))
    }
  }

  /** Asks the running loop for a tick soon; does nothing when not started (tests step by hand). */
  poke(): void {
    if (!this.timer || this.poked) return
    this.poked = true
    setImmediate(() => {
      this.poked = false
      if (this.timer) this.safeTick()
    })
  }

  /** Starts the production loop. */
  start(): void {
    if (this.timer) return
    holdOwner(this.o, () => this.poke())
    this.timer = setInterval(() => this.safeTick(), this.o.pollMs)
    this.safeTick()
  }

  /** Stops claiming and waits for deliveries in flight. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer)
    this.timer = null
    await this.idle()
    await this.o.owners?.release(this.o.owner)
  }

  private safeTick(): void {
    this.tick().catch((e) => this.o.log.error('event dispatch tick failed', { error: (e as Error).message }))
  }

  /**
   * Delivers a claimed run of a workspace's events in order, each to every subscriber of its type,
   * and the next only once all have taken the one before; then settles the run in one unit: the
   * events delivered are finished, one that failed is retried after a backoff, and those after it
   * are given back (they wait for it).
   */
  private async deliver(run: Claimed[]): Promise<void> {
    const taken = await this.o.outbox.deliveredIn(run)
    let delivered = 0
    let failed: RunFailure | null = null
    for (const c of run) {
      const { failures, took } = await this.handOut(c, taken.get(c.event.id))
      if (failures.length > 0) {
        failed = { error: failures.join('; '), delayMs: this.backoff(c.attempts + 1), took }
        break
      }
      delivered++
    }
    await this.o.outbox.settleRun(run, this.o.owner, delivered, failed)
  }

  /**
   * Hands one event to each of its subscribers not yet recorded as having taken it (`done`). A
   * transactional subscriber's delivery is recorded in the unit of its work, so it takes the event
   * exactly once; another's at once when a subscriber follows it (a crash in that one does not call
   * it again), else with the run's settle, and only if the event is tried again (`took`: one before
   * it failed): a delivered event's records are never read, and a crash before the settle calls the
   * last subscriber again, as one between its work and its record always could. Returns the
   * failures.
   */
  private async handOut(
    c: Claimed,
    done: ReadonlySet<string> = new Set(),
  ): Promise<{ failures: string[]; took: string[] }> {
    const { outbox } = this.o
    const { event } = c
    const failures: string[] = []
    const took: string[] = []
    const takers = this.subscribers.filter((s) => s.types.includes(event.type) && !done.has(s.name))
    for (const [i, s] of takers.entries()) {
      try {
        if (s.takes && !(await s.takes(event))) continue
        if (s.transactional) {
          await outbox.atomically(async () => {
            await s.handle(event)
            await outbox.recordDelivery(event.id, s.name)
          })
        } else {
          await s.handle(event)
          if (i < takers.length - 1) await outbox.recordDelivery(event.id, s.name)
          else took.push(s.name)
        }
      } catch (e) {
        const message = e instanceof Error ? e.message : String(e)
        failures.push(`${s.name}: ${message}`)
        this.o.log.warn('event subscriber failed', {
          event_id: event.id,
          type: event.type,
          subscriber: s.name,
          attempt: c.attempts + 1,
          error: message,
        })
      }
    }
    return { failures, took }
  }

  /**
   * An event type's inline subscribers, which the outbox applies in the emitter's transaction, and
   * whether others take it too (deliveries are then recorded; else it is written delivered).
   */
  private inlinePlan(type: EventType): InlinePlan {
    let plan = this.plans.get(type)
    if (!plan) {
      const takers = this.subscribers.filter((s) => s.types.includes(type))
      const others = takers.filter((s) => !s.inline)
      const asks = others.length > 0 && others.every((s) => s.takes) ? others.map((s) => s.takes!) : null
      plan = { inline: takers.filter((s) => s.inline), others: others.length > 0, asks }
      this.plans.set(type, plan)
    }
    return plan
  }

  /** Frees at once the events of owners whose process has ended (checked at most four times a lease). */
  private async resumeDeadOwners(): Promise<void> {
    const owners = this.o.owners
    const now = this.o.clock.now().getTime()
    if (!owners || now - this.lastOwnerCheck < this.o.leaseMs / 4) return
    this.lastOwnerCheck = now
    for (const owner of await this.o.outbox.otherOwners(this.o.owner)) {
      if (!(await owners.isDead(owner))) continue
      const count = await this.o.outbox.releaseOwner(owner)
      if (count > 0) this.o.log.warn('events resumed from a process that stopped', { count, owner })
    }
  }

  /** Deletes delivered events past their keep time, at most once an hour. */
  private async pruneDelivered(): Promise<void> {
    const now = this.o.clock.now().getTime()
    if (now - this.lastPrune < 3_600_000) return
    this.lastPrune = now
    await this.o.outbox.prune(now - (this.o.keepMs ?? 7 * 86_400_000))
  }
}
