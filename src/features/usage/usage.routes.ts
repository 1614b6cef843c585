import { defineRoute, type RouteDef } from '../../platform/http/route'
import { BillingResp, UsageResp } from './usage.schemas'
import type { UsageService } from './usage.service'

/** `/admin/usage` and `/admin/billing` (workspace admin). */
export function usageRoutes(usage: UsageService): RouteDef[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/admin/usage',
      auth: 'admin',
      scope: 'admin',
      summary: 'Usage totals, per-base breakdown and a 30-day daily query series',
      tags: ['admin'],
      response: UsageResp,
      handler: ({ principal }) => usage.usage(principal.workspaceId),
    }),
    defineRoute({
      method: 'GET',
      path: '/admin/billing',
      auth: 'admin',
      scope: 'admin',
      summary: 'Plan, limits, usage against them and the estimated cost of the period',
      tags: ['admin'],
      response: BillingResp,
      handler: ({ principal }) => usage.billing(principal.workspaceId),
    }),
  ]
}
