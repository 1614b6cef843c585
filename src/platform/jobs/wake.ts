// Waking the job queue's other processes (docs/scale-out.md, "Jobs and the outbox dispatcher"): on
// PostgreSQL a unit that enqueued jobs, or asked running ones to stop, tells every process on commit
// (`engram_jobs`, notices.ts), so their schedulers claim the work, or stop the job they run, now
// rather than at their next poll. A notice missed (a listener reconnecting) leaves it to the poll.
import { JOBS_CHANNEL, noticesOf } from '../db/notices'
import type { Store } from '../db/store'

const ENQUEUED = 'enqueue'
const CANCEL = 'cancel:'

/** Ids a cancel notice carries at most: PostgreSQL takes 8000 bytes a payload, an id is ~30. */
const IDS_A_NOTICE = 100

/** In the caller's unit: tells the other processes, once it commits, that jobs were enqueued. */
export async function tellEnqueued(store: Store): Promise<void> {
  // PostgreSQL folds the same notice told twice in one transaction into one.
  await noticesOf(store)?.tell(JOBS_CHANNEL, ENQUEUED)
}

/** In the caller's unit: tells the other processes, once it commits, that these jobs were asked to stop. */
export async function tellCanceled(store: Store, ids: readonly string[]): Promise<void> {
  const notices = noticesOf(store)
  if (!notices) return
  for (let i = 0; i < ids.length; i += IDS_A_NOTICE) {
    await notices.tell(JOBS_CHANNEL, `${CANCEL}${ids.slice(i, i + IDS_A_NOTICE).join(',')}`)
  }
}

/** Calls `enqueued` when another process enqueued jobs, `canceled` with the ids it asked to stop. */
export function hearJobs(
  store: Store,
  on: { enqueued(): void; canceled(ids: readonly string[]): void },
): void {
  noticesOf(store)?.hear(JOBS_CHANNEL, (payload) => {
    if (payload === ENQUEUED) on.enqueued()
    else if (payload.startsWith(CANCEL)) on.canceled(payload.slice(CANCEL.length).split(','))
  })
}
