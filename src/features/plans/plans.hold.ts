import { holdInUnit } from '../../platform/db/hold'
import type { Store } from '../../platform/db/store'
import type { CapName } from './plans.schemas'

/**
 * Holds a workspace's cap in the calling unit until it ends (`holdInUnit`): call it before counting
 * what the cap limits, then `PlansService.ensureRoom` and the write, so two units cannot both count
 * below the cap and both write (on PostgreSQL; on SQLite units take turns anyway). Every writer of
 * what one cap counts holds the same key.
 */
export function holdCap(store: Store, workspaceId: string, cap: CapName): Promise<void> {
  return holdInUnit(store, `cap:${cap}:${workspaceId}`)
}
