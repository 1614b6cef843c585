import type { Config } from '../../platform/config/config.load'
import type { Feature, Platform } from '../../platform/feature/feature'
import type { AccountsService } from '../accounts/accounts.service'
import type { AnswersService } from '../answers/answers.service'
import type { CorporaService } from '../corpora/corpora.service'
import type { Engine } from '../engine/engine.service'
import type { KeysService } from '../keys/keys.service'
import type { PlansService } from '../plans/plans.service'
import { UsageExport } from './usage.export'
import { usageExportRoutes } from './usage.export.routes'
import { usageRoutes } from './usage.routes'
import { UsageService } from './usage.service'
import { usageSubscriber } from './usage.subscribers'

export interface UsageFeatureDeps {
  accounts: AccountsService
  keys: KeysService
  corpora: CorporaService
  engine: Engine
  answers: AnswersService
  plans: PlansService
  /** Whether billing is on (`mode` is not `off`), for `/admin/billing`. */
  billing: Pick<Config['billing'], 'mode'>
}

/** Query counters (from `question.answered`), the usage and billing reports (with answers' ratings) and the usage export. */
export function usageFeature(p: Platform, d: UsageFeatureDeps): Feature<UsageService> {
  const service = new UsageService(
    p.store,
    p.clock,
    {
      members: async (ws) => (await d.accounts.workspaceUsers(ws)).length,
      activeKeys: async (ws) => await d.keys.activeCount(ws),
      // Documents and stored bytes from the bases' counters, plus their cartridges (sizes still
      // unknown, of cartridges made before sizes were recorded, are asked of the store once).
      bases: async (ws) => {
        await d.engine.measureCarts(async (key) => (await p.objects.head(key))?.size ?? null)
        return (await d.corpora.usage(ws)).map((b) => ({
          ...b,
          storageBytes: b.storageBytes + d.engine.cartBytes(b.id),
          documentBytes: b.storageBytes,
        }))
      },
      feedback: (ws, from, to) => d.answers.feedbackCounts(ws, from, to),
      plan: async (ws) => await d.plans.planOf(ws),
      queriesUsed: async (ws, at) => await d.plans.queriesUsed(ws, at),
      counted: () => p.events.settled(),
    },
    d.billing.mode !== 'off',
  )
  const routes = [...usageRoutes(service), ...usageExportRoutes(new UsageExport(p))]
  return { name: 'usage', service, routes, subscribers: [usageSubscriber(service)] }
}
