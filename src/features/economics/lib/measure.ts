import { isTerminal, type Job } from '../../../platform/jobs/queue'

/** Process CPU time (user + system) in milliseconds. */
export function processCpuMs(): number {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}

/** The measured work of an onboarding run, as the onboarding feature stores it in the run's result. */
interface RunStatsLike {
  cpuMs?: number
}

/**
 * CPU time of the onboarding that built the base as it is now: the finished `train` runs since the
 * last forced run that succeeded (a forced run redoes every document, so earlier work is superseded).
 * `runs` come newest first, as the job queue lists them (insertion order, exact even within one ms).
 */
export function trainCpuMs(runs: readonly Job[], runKind: string): number {
  const oldestFirst = runs.filter((j) => j.kind === runKind && isTerminal(j.status)).reverse()
  let total = 0
  for (const run of oldestFirst) {
    if (run.payload.force === true && run.status === 'succeeded') total = 0
    total += (run.result as RunStatsLike | null)?.cpuMs ?? 0
  }
  return total
}

/** A document row's fields that tell leaves (what is onboarded) from parents. */
interface RowLike {
  id: string
  parent_id: string | null
  text_key: string | null
  text_chars: number
  text_offset: number | null
  status: string
}

/** The rows that carry text of their own: sections, and files that were not split. */
export function leaves<R extends RowLike>(rows: readonly R[]): R[] {
  const parents = new Set(rows.flatMap((r) => (r.parent_id ? [r.parent_id] : [])))
  return rows.filter((r) => !parents.has(r.id))
}
