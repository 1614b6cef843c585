import { defineRoute, type RouteDef } from '../../platform/http/route'
import { ErasureTimelineResp } from './platform-info.erasure'
import { PlatformInfoResp } from './platform-info.schemas'
import type { PlatformInfoService } from './platform-info.service'

/** `GET /v1/platform/info`: public (spec, Authentication 10); `GET /platform/erasure-timeline`: admins. */
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
    defineRoute({
      method: 'GET',
      path: '/platform/erasure-timeline',
      auth: 'admin',
      scope: 'admin',
      summary:
        'For each kind of stored data: when a deletion makes it unreachable, and when it is physically gone',
      description:
        "Read from what the code does on a delete (the rows, the object store, the index, the cartridges, the outbox, the idempotency store, the audit log), for this server's storage. `after_seconds` is the longest wait after the delete answers; null when it is not bounded by this server (the database's free pages, the bucket's versions, backups). See docs/governance.md.",
      tags: ['platform'],
      response: ErasureTimelineResp,
      handler: () => info.erasureTimeline(),
    }),
  ]
}
