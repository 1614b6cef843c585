import type { Feature, Platform } from '../../platform/feature/feature'
import type { PlansService } from '../plans/plans.service'
import { corporaRoutes } from './corpora.routes'
import { CorporaService } from './corpora.service'

/**
 * Document bases and their documents: create, list, read, delete. What must forget deleted
 * documents (ingest's objects, the engine's index) and whether a build is running are told to the
 * service by the features that know, built after this one (`addPurger`, `setBuildProbe`).
 */
export function corporaFeature(p: Platform, d: { plans: PlansService }): Feature<CorporaService> {
  const service = new CorporaService({ ...p, plans: d.plans })
  return { name: 'corpora', service, routes: corporaRoutes(service) }
}
