import type { Config } from '../../platform/config/config.load'
import type { Mailer } from '../../platform/email/email'
import type { Feature, Platform } from '../../platform/feature/feature'
import { statusRoutes } from './status.routes'
import { databaseProbe, StatusService } from './status.service'

export interface StatusFeatureDeps {
  config: Config['status']
  version: string
  mailer: Pick<Mailer, 'mode'>
}

const EMAIL_STATUS = {
  smtp: { status: 'operational' },
  log: { status: 'disabled', detail: 'links written to the server log' },
  disabled: { status: 'disabled', detail: 'links returned in responses' },
} as const

/** Platform status and service objectives: the database answers, email is on or says why not. */
export function statusFeature(p: Platform, d: StatusFeatureDeps): Feature<StatusService> {
  const service = new StatusService(d.config, p.clock, d.version, [
    databaseProbe(p.store),
    {
      name: 'email',
      check: () => EMAIL_STATUS[d.mailer.mode],
    },
  ])
  return { name: 'status', service, routes: statusRoutes(service) }
}
