import type { Feature } from '../../platform/feature/feature'
import { type ServiceRouteDeps, serviceRoutes } from './service.routes'

/** The service's own pages: `/`, `/v1`, `/openapi.json`, `/docs`. */
export function serviceFeature(d: ServiceRouteDeps): Feature<null> {
  return { service: null, routes: serviceRoutes(d) }
}
