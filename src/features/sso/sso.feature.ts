import { OidcRelyingParty } from '../../platform/auth/oidc'
import { OidcFlowState } from '../../platform/auth/oidc-flow'
import { baseUrl, type Config } from '../../platform/config/config.load'
import { Sealer } from '../../platform/crypto/sealed'
import type { Feature, Platform } from '../../platform/feature/feature'
import { EgressGuard } from '../../platform/net/egress'
import { RateLimiter } from '../../platform/rate-limit/rate-limit'
import type { AccountsService } from '../accounts/accounts.service'
import type { IdentityService } from '../identity/identity.service'
import type { PlansService } from '../plans/plans.service'
import type { WorkspacesService } from '../workspaces/workspaces.service'
import { SsoLimits } from './sso.limits'
import { SsoRepo } from './sso.repo'
import { ssoRoutes } from './sso.routes'
import { SsoService } from './sso.service'
import { CALLBACK_PATH } from './sso.settings'

export interface SsoFeatureDeps {
  /**
   * The public URL (the redirect URI); the outbound rules of `sources`, which a customer's issuer
   * follows too; its own section (http issuers, the start's rate limit) and whether limits are on.
   */
  config: Pick<Config, 'server' | 'sources' | 'sso' | 'security'>
  /** The instance secret: client secrets and flow cookies are sealed under keys derived from it. */
  secret: string
  accounts: AccountsService
  workspaces: WorkspacesService
  identity: IdentityService
  /** Members who join through single sign-on take seats of the workspace's plan. */
  plans: PlansService
}

/**
 * Per-workspace OpenID Connect single sign-on. Built after accounts, whose users it signs in and
 * creates, and identity, which keeps the provider identities it links; it plugs its enforcement into
 * accounts (sign-in, the session check, and identity's Google sign-in through it) from here.
 */
export function ssoFeature(p: Platform, d: SsoFeatureDeps): Feature<SsoService> {
  // A customer's issuer is an address a tenant chose: reached through the outbound guard, as sources are.
  const guard = new EgressGuard({
    denyPrivateNetworks: d.config.sources.deny_private_networks,
    allowLoopback: d.config.sources.allow_loopback,
  })
  const rp = new OidcRelyingParty({ clock: p.clock, random: p.random, fetch: guard.fetch })
  const flow = new OidcFlowState(d.secret, p.clock, p.store, {
    name: 'engram_sso_flow',
    path: CALLBACK_PATH,
    secure: baseUrl(d.config).startsWith('https:'),
  })
  const limiter = new RateLimiter(p.store, p.clock, d.config.security.rate_limits === 'on')
  const service = new SsoService(
    {
      ...p,
      ...d,
      repo: new SsoRepo(p.store),
      sealer: new Sealer(d.secret, 'engram/sso/client-secret'),
      rp,
      allowHttpIssuer: d.config.sso.allow_http_issuer,
      limits: new SsoLimits(limiter, d.config.sso),
    },
    flow,
  )
  d.accounts.useSsoPolicy(service.policy)
  return { name: 'sso', service, routes: ssoRoutes(service) }
}
