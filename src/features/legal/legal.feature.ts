import type { Feature, Platform } from '../../platform/feature/feature'
import { legalRoutes } from './legal.routes'
import { LegalService } from './legal.service'

/**
 * Legal documents (terms, privacy, DPA) and their acceptance by workspaces; its service's
 * `firstUnaccepted` is what billing gates checkout and paid plan changes on.
 */
export function legalFeature(
  p: Platform,
  { config }: { config: { dir: string | null } },
): Feature<LegalService> {
  const service = new LegalService(p, config.dir)
  return { name: 'legal', service, routes: legalRoutes(service) }
}
