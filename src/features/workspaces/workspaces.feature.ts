import type { Feature, Platform } from '../../platform/feature/feature'
import { WorkspacesService } from './workspaces.service'

/** Workspaces (tenants): no routes of their own; accounts and members manage them. */
export function workspacesFeature(p: Platform): Feature<WorkspacesService> {
  return { name: 'workspaces', service: new WorkspacesService(p.store, p.clock, p.random) }
}
