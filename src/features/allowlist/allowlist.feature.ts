import type { Feature, Platform } from '../../platform/feature/feature'
import type { WorkspacesService } from '../workspaces/workspaces.service'
import { allowlistRoutes } from './allowlist.routes'
import { AllowlistService } from './allowlist.service'

/**
 * The workspace IP allowlist: its settings routes, and the check (`service.admit`) the composition
 * hands the HTTP layer, which runs it on every request with a credential.
 */
export function allowlistFeature(
  p: Platform,
  d: { workspaces: WorkspacesService },
): Feature<AllowlistService> {
  const service = new AllowlistService({ ...p, workspaces: d.workspaces })
  return { name: 'allowlist', service, routes: allowlistRoutes(service) }
}
