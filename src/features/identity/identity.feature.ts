import { OidcRelyingParty } from '../../platform/auth/oidc'
import { OidcFlowState } from '../../platform/auth/oidc-flow'
import { baseUrl } from '../../platform/config/config.load'
import type { Feature, Platform } from '../../platform/feature/feature'
import type { AccountsService } from '../accounts/accounts.service'
import type { WorkspacesService } from '../workspaces/workspaces.service'
import { IdentityRepo } from './identity.repo'
import { identityRoutes } from './identity.routes'
import {
  GOOGLE_CALLBACK_PATH,
  type IdentityConfig,
  IdentityService,
  type SsoEnforcement,
} from './identity.service'

export interface IdentityFeatureDeps {
  config: IdentityConfig
  /** The instance secret: flow cookies and link tickets are sealed or signed under keys derived from it. */
  secret: string
  accounts: AccountsService
  workspaces: WorkspacesService
  /** Single sign-on's enforcement: an enforcing workspace refuses Google sign-in and linking. */
  sso: SsoEnforcement
}

/**
 * Sign-in through a social provider (Google, over OpenID Connect) and linking such an identity to an
 * existing password account. Built after accounts, whose users it signs in and creates.
 */
export function identityFeature(p: Platform, d: IdentityFeatureDeps): Feature<IdentityService> {
  const callback = new URL(`${baseUrl(d.config)}${GOOGLE_CALLBACK_PATH}`)
  const flow = new OidcFlowState(d.secret, p.clock, p.store, {
    name: 'engram_google_flow',
    // The browser sends the cookie to the callback only.
    path: callback.pathname,
    secure: callback.protocol === 'https:',
  })
  const rp = new OidcRelyingParty({ clock: p.clock, random: p.random })
  const service = new IdentityService({ ...p, ...d, repo: new IdentityRepo(p.store), rp }, flow)
  return { name: 'identity', service, routes: identityRoutes(service) }
}
