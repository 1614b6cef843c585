// How a run's units are split into batch jobs, and a batch's into groups.

import type { Job } from '../../platform/jobs/queue'
import type { Unit } from '../corpora/corpora.service'
import type { IndexedSection } from '../engine/engine.service'

/** Measured cost of a run (kept in its result for economics), and its units that failed. */
export interface RunStats {
  units: number
  chars: number
  cpuMs: number
  failed: number
}

/**
 * Units a batch job holds (at least): a batch's groups are a pipeline (the next ones chunked while
 * this one is written), so a base of a few MB is a couple of batches, each running on, not many
 * short ones each starting its pipeline anew (and waiting for a free slot between them).
 */
export const BATCH_UNITS = 32

/** Text a batch of small units holds beyond its first `batchSize` units. */
const BATCH_CHARS = 512 * 1024
/** Most units a batch of small ones holds. */
const BATCH_UNITS_MAX = 512

/** Soonest and latest a batch waiting for a document's text extraction looks again. */
const WAIT_MIN_MS = 20
const WAIT_MAX_MS = 5_000

/**
 * How long a batch waiting for a text extraction waits before it looks again: a tenth of how long it
 * has been running (since `startedAt`, its first start), between WAIT_MIN_MS and WAIT_MAX_MS. A run
 * started just after an upload goes on as soon as the extraction it needs ends; one behind a long
 * queue of extractions (a large share) looks every few seconds, at most a tenth of its time later.
 */
export function extractionWaitMs(startedAt: number | null, now: number): number {
  const ran = startedAt === null ? 0 : Math.max(0, now - startedAt)
  return Math.min(WAIT_MAX_MS, Math.max(WAIT_MIN_MS, Math.round(ran / 10)))
}

/** A unit as a run splits them into batches. */
export type BatchUnit = Pick<Unit, 'id' | 'parentId' | 'textChars'>

/**
 * A run's units in batches: `size` units each, or more while the batch holds at most BATCH_CHARS of
 * text (up to BATCH_UNITS_MAX). Small files share batches, so a run of 5,000 one-paragraph files
 * has 10 batches, not 313: fewer jobs to claim and settle, and each batch several groups, so that
 * a thread chunks the next ones while the event loop writes this one (a batch of one group has its
 * group chunked by the event loop itself, nothing ahead of it).
 */
export function batchesOf<U extends BatchUnit>(units: U[], size: number): U[][] {
  const out: U[][] = []
  let batch: U[] = []
  let chars = 0
  for (const u of units) {
    const full = batch.length >= BATCH_UNITS_MAX || chars + u.textChars > BATCH_CHARS
    if (batch.length >= size && full) {
      out.push(batch)
      batch = []
      chars = 0
    }
    batch.push(u)
    chars += u.textChars
  }
  if (batch.length > 0) out.push(batch)
  return out
}

/** How much a group holds at most: sections, and text (its units' characters). */
export interface GroupLimits {
  sections: number
  chars: number
}

/**
 * Most sections indexed together, their rows in one transaction (the next group's texts are read
 * while this one is indexed); most text in a group: a transaction of about this much text keeps the
 * event loop's turns short.
 */
export const GROUP: GroupLimits = { sections: 128, chars: 128 * 1024 }

/**
 * The same on a shared index (Engine.writesPublished), where each group's write is also published for
 * the other replicas: a file exported, put in the object store and named in the shared database,
 * 60-90 ms under the base's lease whatever the group's size. A batch holds about half a MB
 * (BATCH_CHARS), so there it is mostly one group: one replica onboarding 13.3 MB published its run and
 * deferred build in 41 generations instead of 119, the run in 6.6-8.3 s instead of 10.1 (issue 38,
 * session 43). The event loop's turn for a group's rows is longer (about 0.1 s a MB), and the
 * replica's questions meanwhile wait for it.
 */
export const PUBLISHED_GROUP: GroupLimits = { sections: 1024, chars: 1024 * 1024 }
/** Groups of a batch planned at once (the one written and those after it): their texts read, their chunking asked for. */
export const GROUPS_AHEAD = 3
/**
 * How long the run waits for a thread to start chunking the group it is about to write before it
 * takes the group back and chunks it itself: a thread busy with the groups before (7-14 ms a group
 * once its code is compiled) gets it, and a thread behind (compiles ahead of it, a loaded machine)
 * holds a run up by at most this a group. A group taken back blocks the event loop while it is
 * chunked (slowly at first, its chunking code not compiled yet: about 95 ms for the first group of
 * 1x squad-dev), the other batch's writes and the thread's answers waiting: taken after
 * 2 ms, a run of 1x squad-dev took a median 0.244 s against 0.223 after 25 ms and 0.195 after 100
 * (issue 38, session 39).
 */
export const TAKE_AFTER_MS = 100

/** No sections chunked (a group without units). */
export const NONE: Promise<null> = Promise.resolve(null)

/** A leaf of a group: its text being read. */
export interface PlannedLeaf {
  leaf: Unit
  text: Promise<string>
}

/** A unit of a group: its row, its leaves, and those still to onboard. */
export interface PlannedUnit {
  unit: Unit
  leaves: Unit[]
  todo: PlannedLeaf[]
}

/**
 * Units onboarded together; `done` counts the batch's units up to its end, `waiting` a document
 * still being extracted; `chunked`, its sections (those whose text was read, in order) chunked on a
 * compile thread while the group before is written (null when that failed: indexSections chunks them).
 */
export interface Group {
  units: PlannedUnit[]
  done: number
  waiting: string | null
  chunked: Promise<IndexedSection[] | null>
  /** Whether the group is the next to write: its chunking, once asked for, is taken after TAKE_AFTER_MS. */
  due?: boolean
  take?: () => void
}

/** A run's figures: the sums of its batches' results. */
export function runStats(children: Job[]): RunStats {
  return children.reduce(
    (a, c) => {
      const r = (c.result ?? {}) as Partial<RunStats>
      return {
        units: a.units + (r.units ?? 0),
        chars: a.chars + (r.chars ?? 0),
        cpuMs: a.cpuMs + (r.cpuMs ?? 0),
        failed: a.failed + (r.failed ?? 0),
      }
    },
    { units: 0, chars: 0, cpuMs: 0, failed: 0 },
  )
}
