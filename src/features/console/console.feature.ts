import type { Feature } from '../../platform/feature/feature'
import { consoleRoutes } from './console.routes'

/** The web console's bundle and pages at `/console/` (docs/console.md). */
export function consoleFeature(): Feature<null> {
  return { name: 'console', service: null, routes: consoleRoutes() }
}
