import type { Feature, Platform } from '../../platform/feature/feature'
import { auditRoutes } from './audit.routes'
import { AuditService } from './audit.service'
import { auditSubscriber } from './audit.subscribers'

/** The audit log: one hash-chained row per audited domain event, and the routes that read and check it. */
export function auditFeature(p: Platform): Feature<AuditService> {
  const service = new AuditService(p.store, p.events)
  return {
    name: 'audit',
    service,
    routes: auditRoutes(service),
    subscribers: [auditSubscriber(service)],
    // Rows written before the chain existed are chained once, in their order, before anything is appended.
    start: async () => {
      const n = await service.chainAll()
      if (n > 0) p.log.info('audit rows chained', { count: n })
    },
  }
}
