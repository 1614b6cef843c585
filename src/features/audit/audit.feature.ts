import type { Feature, Platform } from '../../platform/feature/feature'
import { AuditService } from './audit.service'
import { auditSubscriber } from './audit.subscribers'

/** The audit log: written from other features' domain events. */
export function auditFeature(p: Platform): Feature<AuditService> {
  const service = new AuditService(p.db, p.clock, p.random)
  return { name: 'audit', service, subscribers: [auditSubscriber(service)] }
}
