import type { Feature, Platform } from '../../platform/feature/feature'
import { allowlistRoutes } from './allowlist.routes'
import { AllowlistService } from './allowlist.service'

/**
 * The workspace IP allowlist: its settings routes, and the check (`service.admit`) the composition
 * hands the HTTP layer, which runs it on every request with a credential.
 */
export function allowlistFeature(p: Platform): Feature<AllowlistService> {
  const service = new AllowlistService(p)
  return { name: 'allowlist', service, routes: allowlistRoutes(service) }
}
