import { defineRoute, type RouteDef } from '../../platform/http/route'
import { PlansResp } from './plans.schemas'
import type { PlansService } from './plans.service'

/** `GET /plans` (and `/v1/plans`): public, for a pricing page read before signing up. */
export function plansRoutes(plans: PlansService): RouteDef[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/plans',
      auth: 'none',
      summary: 'The plans this server offers, with their prices, caps and rate card',
      description:
        'Public. `caps` null is unlimited; `public` false marks a plan not offered for sign-up (the legacy `beta`, negotiated plans). The operator replaces the defaults with `ENGRAM_PLANS_FILE` (docs/plans.md).',
      tags: ['plans'],
      response: PlansResp,
      handler: () => ({ plans: plans.plansOf() }),
    }),
  ]
}
