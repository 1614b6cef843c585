import type { SQL } from 'bun'
import { sql } from 'drizzle-orm'
import type { Store } from './store'

/** The channel the job queue tells other processes on: a unit that enqueued, or asked jobs to stop. */
export const JOBS_CHANNEL = 'engram_jobs'

/** The channel a base's published index is told on when it moves (its base id): replicas holding it take it. */
export const INDEX_CHANNEL = 'engram_index'

/** Every channel a process listens on for notices (its listening connection subscribes to each). */
const CHANNELS = [JOBS_CHANNEL, INDEX_CHANNEL] as const

/** A channel notices are told on. */
export type NoticeChannel = (typeof CHANNELS)[number]

/**
 * Hints told to the other processes on the database when a unit commits (a job to claim, a job to
 * stop), which they may miss (a listening connection down, a process not yet listening): a hint to
 * look now, never the record, which stays in the tables their polls read.
 */
export interface Notices {
  /** Tells `payload` (small: PostgreSQL takes at most 8000 bytes) on `channel` once the caller's unit commits. */
  tell(channel: NoticeChannel, payload: string): Promise<void>
  /** Calls `fn` with each payload another process tells on `channel` (this one's are not heard back). */
  hear(channel: NoticeChannel, fn: (payload: string) => void): void
}

/** The store's notices, on PostgreSQL; null on SQLite, where processes share one machine and poll. */
export function noticesOf(store: Store): Notices | null {
  const notices = (store as { notices?: Notices }).notices
  return notices ?? null
}

/**
 * Notices on PostgreSQL: `pg_notify` in the unit's transaction, which PostgreSQL delivers only on
 * commit (and drops on rollback), heard on the process's listening connection. Each payload is
 * prefixed with the sender's id so that a process skips its own: it acts on those in process.
 */
export class PostgresNotices implements Notices {
  private readonly handlers = new Map<string, ((payload: string) => void)[]>()

  /** `self` names this process; `execute` runs a statement on the store's handle of the moment. */
  constructor(
    private readonly self: string,
    private readonly execute: (query: ReturnType<typeof sql>) => Promise<unknown>,
  ) {}

  async tell(channel: NoticeChannel, payload: string): Promise<void> {
    await this.execute(sql`SELECT pg_notify(${channel}, ${`${this.self} ${payload}`})`)
  }

  hear(channel: NoticeChannel, fn: (payload: string) => void): void {
    const list = this.handlers.get(channel) ?? []
    list.push(fn)
    this.handlers.set(channel, list)
  }

  /** Listens on every notice channel on `client`, the listening connection's client. */
  async listen(client: SQL): Promise<void> {
    for (const channel of CHANNELS) {
      await client.listen(channel, (message: string) => {
        const space = message.indexOf(' ')
        if (space < 0 || message.slice(0, space) === this.self) return
        for (const fn of this.handlers.get(channel) ?? []) fn(message.slice(space + 1))
      })
    }
  }
}
