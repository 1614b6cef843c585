import type { Feature, Platform } from '../../platform/feature/feature'
import type { CorporaService } from '../corpora/corpora.service'
import type { SectionOnboarder } from './onboarding.jobs'
import { onboardingRoutes } from './onboarding.routes'
import { OnboardingService } from './onboarding.service'

export interface OnboardingFeatureDeps extends Platform {
  corpora: CorporaService
  engine: SectionOnboarder
}

/** Onboarding runs: batches of documents made answerable by the engine, as durable jobs. */
export function onboardingFeature(d: OnboardingFeatureDeps): Feature<OnboardingService> {
  const service = new OnboardingService(d)
  return { service, routes: onboardingRoutes(service), jobs: service.jobDefinitions }
}
