import { databaseAnswers } from '../../platform/db/database-away'
import type { Feature, Platform } from '../../platform/feature/feature'
import { buildOpenApi } from '../../platform/http/openapi'
import type { RouteDef } from '../../platform/http/route'
import { type ServiceRouteDeps, serviceRoutes } from './service.routes'

export interface ServiceFeatureDeps extends Omit<ServiceRouteDeps, 'openapi' | 'ready'> {
  /** Every other route, in mount order: the document describes them after the service's own. */
  routes: RouteDef[]
}

/** The OpenAPI document of the whole API, built once, on first request. */
export interface ServiceDocs {
  openapi(): Record<string, unknown>
}

/**
 * The service's own pages: `/`, `/v1`, `/openapi.json`, `/docs`. Listed last, since its document
 * describes every route before it; mounted first.
 */
export function serviceFeature(p: Pick<Platform, 'store'>, d: ServiceFeatureDeps): Feature<ServiceDocs> {
  const info = {
    title: 'Engram',
    version: d.version,
    description: 'Self-hosted document question-answering control plane.',
  }
  let document: Record<string, unknown> | null = null
  const openapi = () => {
    document ??= buildOpenApi([...routes, ...d.routes], info)
    return document
  }
  // `GET /ready` asks the database a trivial statement.
  const routes = serviceRoutes({ ...d, openapi, ready: () => databaseAnswers(p.store) })
  return { name: 'service', service: { openapi }, routes }
}
