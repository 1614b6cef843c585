import type { Clock } from '../../platform/clock/clock'
import { holdInUnit } from '../../platform/db/hold'
import type { Subscriber } from '../../platform/events/dispatcher'
import type { JobDefinition } from '../../platform/feature/feature'
import type { Job, JobQueue, ReadableJobs } from '../../platform/jobs/queue'
import { type JobContext, TransientError } from '../../platform/jobs/scheduler'
import type { Engine } from './engine.service'

/**
 * The engine's own durable job: a base's passages encoded with the built-in encoder for the
 * support check (EngineEncodings), queued when an onboarding run finishes and, at start-up, for
 * every base with passages still without an encoding. The base answers meanwhile: a passage not
 * encoded yet is embedded with its question.
 */
export const ENCODE_KIND = 'encode'
// A failing encoder (busy with a burst of questions, or a thread that died) is tried again later.
const ENCODE_ATTEMPTS = 5
/**
 * How long after a run its base's encoding starts: a base onboarded again meanwhile (a change
 * onboarded automatically, a forced run) is encoded once, not once a run. It answers meanwhile.
 */
export const ENCODE_DELAY_MS = 60_000
// Sections a step: progress is recorded, and the cancel flag read, between steps (and requests).
const SECTIONS_PER_STEP = 8
/** On a shared index, steps are published together for about this long (each publication copies the base). */
const PUBLISH_EVERY_MS = 5_000

type EngineParts = Pick<Engine, 'encodings' | 'sectionsOf' | 'builds' | 'syncBase' | 'writeBase'>

/** The encode jobs callers follow (`GET /jobs/{job_id}`, a base's jobs): each is about its base, its subject. */
export const encodeJobs: ReadableJobs = { kinds: [ENCODE_KIND], corpusOf: (job) => job.subjectId }

/**
 * Queues a base's encode job, to start ENCODE_DELAY_MS from now, unless one is already waiting (or the
 * encoder is off), in the caller's unit or one of its own. The look and the add hold the base's encode
 * key (db/hold.ts), so two units at once on PostgreSQL cannot both find none waiting and both add one.
 */
export async function queueEncode(
  queue: JobQueue,
  clock: Clock,
  engine: EngineParts,
  workspaceId: string,
  corpusId: string,
): Promise<Job | null> {
  // A base deleted before its run's event was delivered has nothing to encode: no job left behind.
  if (!engine.encodings.on) return null
  await engine.syncBase(corpusId)
  if (!engine.builds.holds(corpusId)) return null
  return queue.store.unit(async () => {
    await holdInUnit(queue.store, `encode:${corpusId}`)
    const waiting = (await queue.repo.listBySubject(workspaceId, corpusId, [ENCODE_KIND])).find(
      (j) => j.status === 'pending',
    )
    if (waiting) return null
    return queue.add({
      workspaceId,
      subjectId: corpusId,
      kind: ENCODE_KIND,
      maxAttempts: ENCODE_ATTEMPTS,
      runAt: clock.now().getTime() + ENCODE_DELAY_MS,
      detail: 'passages to encode for the support check',
    })
  })
}

/** The encode job: the base's sections a step, each passage without an encoding encoded and stored. */
export function encodeJob(engine: EngineParts): JobDefinition {
  return {
    kind: ENCODE_KIND,
    // Minutes per MB of text on two cores: it never takes the slots kept for onboarding runs.
    lane: 'bulk',
    run: async (ctx: JobContext) => {
      const baseId = ctx.job.subjectId!
      await engine.syncBase(baseId)
      const sections = engine.sectionsOf(baseId).map((s) => s.sectionId)
      ctx.progress({ unitsTotal: sections.length })
      let passages = 0
      const step = async (i: number) => {
        ctx.checkpoint()
        try {
          passages += await engine.encodings.encodeSections(sections.slice(i, i + SECTIONS_PER_STEP), () =>
            ctx.checkpoint(),
          )
        } catch (e) {
          // Encodings stored so far stay; the next attempt starts with the passages still without one.
          if (e instanceof Error && e.message.startsWith('the encoder')) throw new TransientError(e.message)
          throw e
        }
        const done = Math.min(sections.length, i + SECTIONS_PER_STEP)
        ctx.progress({ unitsDone: done, detail: `${done}/${sections.length} sections encoded` })
        return done
      }
      // Steps written together and published (a shared index) for PUBLISH_EVERY_MS at most.
      for (let i = 0; i < sections.length; ) {
        i = await engine.writeBase(baseId, ctx.job.workspaceId, async () => {
          const until = performance.now() + PUBLISH_EVERY_MS
          let at = i
          do at = await step(at)
          while (at < sections.length && performance.now() < until)
          return at
        })
      }
      return { passages }
    },
  }
}

/** Queues the encode job of a base whose onboarding run finished (in the event's delivery unit). */
export function encodeSubscriber(
  queue: JobQueue,
  clock: Clock,
  engine: EngineParts,
): Subscriber<'onboarding.finished'> {
  return {
    name: 'engine.encode',
    types: ['onboarding.finished'],
    transactional: true,
    handle: async (event) => {
      await queueEncode(queue, clock, engine, event.workspaceId, event.payload.corpusId)
    },
  }
}
