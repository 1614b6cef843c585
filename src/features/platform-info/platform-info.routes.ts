import { defineRoute, type RouteDef } from '../../platform/http/route'
import { PlatformInfoResp } from './platform-info.schemas'
import type { PlatformInfoService } from './platform-info.service'

/** `GET /v1/platform/info`: public (spec, Authentication 10). */
export function platformInfoRoutes(info: PlatformInfoService): RouteDef[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/platform/info',
      mount: 'v1',
      auth: 'none',
      summary: 'Where this server stores documents, what it may send elsewhere, and what files it reads',
      tags: ['platform'],
      response: PlatformInfoResp,
      handler: () => info.get(),
    }),
  ]
}
