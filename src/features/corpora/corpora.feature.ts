import type { Feature, Platform } from '../../platform/feature/feature'
import type { AuditService } from '../audit/audit.service'
import { corporaRoutes } from './corpora.routes'
import { CorporaService, type DocumentPurger } from './corpora.service'

export interface CorporaFeatureDeps extends Platform {
  audit: AuditService
  /** What must forget deleted documents before a delete answers, in order (see CorporaDeps). */
  purgers: () => DocumentPurger[]
  /** Whether a build of a base is in flight, for the delete's receipt. */
  buildRunning: (workspaceId: string, corpusId: string) => boolean
}

/** Document bases and their documents: create, list, read, delete (with the purges above). */
export function corporaFeature(d: CorporaFeatureDeps): Feature<CorporaService> {
  const service = new CorporaService(d)
  return { service, routes: corporaRoutes(service) }
}
