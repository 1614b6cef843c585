import type { Config } from '../../platform/config/config.load'
import type { Feature, Platform } from '../../platform/feature/feature'
import type { ReadableJobs } from '../../platform/jobs/queue'
import type { CorporaService } from '../corpora/corpora.service'
import type { IngestService } from '../ingest/ingest.service'
import type { SectionOnboarder } from './onboarding.jobs'
import { onboardingRoutes } from './onboarding.routes'
import { OnboardingService } from './onboarding.service'

export interface OnboardingFeatureDeps {
  /** The debounce of automatic runs. */
  config: Config['onboarding']
  corpora: CorporaService
  /**
   * Extracts documents again before a `force` run when an older extractor read them; tells of
   * uploads as they begin (the engine readied for the run that follows).
   */
  ingest: Pick<IngestService, 'reextract' | 'onUpload'>
  engine: SectionOnboarder
  /** Other features' jobs that `GET /jobs/{job_id}` answers for (sources' syncs and imports). */
  readable: readonly ReadableJobs[]
}

/**
 * Onboarding runs: batches of documents made answerable by the engine, as durable jobs. It tells
 * corpora whether a base's build is running (a delete's receipt says so). Once the server runs
 * jobs, bases onboarded before an embeddings server was plugged in (or under another model) get
 * their passages embedded in the background, after the engine has prepared, and bases whose
 * deferred build a stopped process left unfinished get it again.
 */
export function onboardingFeature(p: Platform, d: OnboardingFeatureDeps): Feature<OnboardingService> {
  const autoTiming = { delayMs: d.config.auto_delay_ms, maxWaitMs: d.config.auto_max_wait_ms }
  const service = new OnboardingService({ ...p, ...d, autoTiming })
  d.corpora.setBuildProbe(async (ws, corpusId) => (await service.inFlight(ws, corpusId)) !== null)
  // A base's upload starts the compile thread, so a run after it finds the thread ready to chunk.
  d.ingest.onUpload(() => d.engine.warmUp())
  let embedding: ReturnType<typeof setTimeout> | undefined
  return {
    name: 'onboarding',
    service,
    routes: onboardingRoutes(service),
    jobs: service.jobDefinitions,
    // New documents of onboarded bases with auto_onboard start a run by themselves.
    subscribers: service.subscribers,
    start: ({ jobs }) => {
      if (!jobs) return
      // Queued behind the engine's preparation (started before this, on the same turn).
      const queue = async () => {
        const bases = await service.embedMissing()
        if (bases > 0) p.log.info('embedding passages in the background', { bases })
        // Bases whose cartridges a stopped process left unbuilt answer by rag until their job ends.
        const building = await service.buildMissing()
        if (building > 0) p.log.info('building cartridges in the background', { bases: building })
      }
      embedding = setTimeout(() => {
        queue().catch((e: Error) => p.log.warn('queueing background builds failed', { error: e.message }))
      }, 0)
    },
    stop: () => clearTimeout(embedding),
  }
}
