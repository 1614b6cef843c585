import type { Config } from '../../platform/config/config.load'
import type { Mailer } from '../../platform/email/email'
import type { Feature, Platform } from '../../platform/feature/feature'
import type { AccountsService } from '../accounts/accounts.service'
import type { PlansService } from '../plans/plans.service'
import type { WorkspacesService } from '../workspaces/workspaces.service'
import { membersRoutes } from './members.routes'
import { MembersService } from './members.service'

export interface MembersFeatureDeps {
  config: Pick<Config, 'accounts' | 'server'>
  mailer: Mailer
  accounts: AccountsService
  workspaces: WorkspacesService
  /** Invitations and joins take seats of the workspace's plan. */
  plans: PlansService
}

/** Roles, invitations and removal of a workspace's members. */
export function membersFeature(p: Platform, d: MembersFeatureDeps): Feature<MembersService> {
  const service = new MembersService({ ...p, ...d })
  return { name: 'members', service, routes: membersRoutes(service) }
}
