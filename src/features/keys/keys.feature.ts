import type { Feature, Platform } from '../../platform/feature/feature'
import type { CorporaService } from '../corpora/corpora.service'
import type { PlansService } from '../plans/plans.service'
import type { WorkspacesService } from '../workspaces/workspaces.service'
import { keysRoutes } from './keys.routes'
import { KeysService } from './keys.service'

/** API keys: created, listed, revoked; every keyed request is authenticated by this service. */
export function keysFeature(
  p: Platform,
  d: { corpora: CorporaService; plans: PlansService; workspaces: WorkspacesService },
): Feature<KeysService> {
  const service = new KeysService(p.store, p.clock, p.random, p.events, d.corpora, d.plans, d.workspaces)
  return { name: 'keys', service, routes: keysRoutes(service) }
}
