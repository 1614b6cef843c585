import type { Config } from '../../platform/config/config.load'
import { baseUrl } from '../../platform/config/config.load'
import type { Feature, Platform } from '../../platform/feature/feature'
import type { LegalService } from '../legal/legal.service'
import type { PlansService } from '../plans/plans.service'
import type { WorkspacesService } from '../workspaces/workspaces.service'
import { BillingEvents } from './billing.events'
import { BillingRepo } from './billing.repo'
import { billingRoutes } from './billing.routes'
import { BillingService } from './billing.service'
import { StripeGateway } from './billing.stripe'

/**
 * Billing through Stripe (ENGRAM_BILLING=stripe): checkout, plan changes, the portal and the
 * webhook that moves a workspace's plan. Off, its status still answers and the rest answer 503.
 * Configuration already refuses `stripe` without its secret key and webhook secret.
 */
export function billingFeature(
  p: Platform,
  d: {
    config: Pick<Config, 'billing' | 'accounts' | 'server'>
    plans: PlansService
    legal: LegalService
    workspaces: WorkspacesService
  },
): Feature<BillingService> {
  const b = d.config.billing
  const repo = new BillingRepo(p.store)
  const gateway =
    b.mode === 'stripe'
      ? new StripeGateway({
          secretKey: b.stripe_secret_key as string,
          webhookSecret: b.stripe_webhook_secret as string,
          apiBase: b.stripe_api_base,
        })
      : null
  const events = gateway
    ? new BillingEvents({
        store: p.store,
        clock: p.clock,
        random: p.random,
        repo,
        plans: d.plans,
        gateway,
        defaultPlan: d.config.accounts.default_plan,
      })
    : null
  const service = new BillingService({
    clock: p.clock,
    random: p.random,
    log: p.log,
    store: p.store,
    repo,
    plans: d.plans,
    legal: d.legal,
    workspaces: d.workspaces,
    gateway,
    events,
    baseUrl: baseUrl(d.config),
  })
  return { name: 'billing', service, routes: billingRoutes(service) }
}
