import { defineRoute, type RouteDef } from '../../platform/http/route'
import { SloResp, StatusResp } from './status.schemas'
import type { StatusService } from './status.service'

/** `/status` and `/status/slo`: any valid credential (a 200 here proves the credential is live). */
export function statusRoutes(status: StatusService): RouteDef[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/status',
      auth: 'bearer',
      // The platform's status: nothing about any base.
      boundKeys: 'served',
      summary: 'Live platform status (cached for a configured interval)',
      tags: ['service'],
      response: StatusResp,
      handler: () => status.status(),
    }),
    defineRoute({
      method: 'GET',
      path: '/status/slo',
      auth: 'bearer',
      // The platform's objectives: nothing about any base.
      boundKeys: 'served',
      summary: 'The published service objectives',
      tags: ['service'],
      response: SloResp,
      handler: () => status.slo(),
    }),
  ]
}
