import type { Clock } from '../../platform/clock/clock'
import { newId, type Random } from '../../platform/crypto/random'
import { holdInUnit } from '../../platform/db/hold'
import type { Store } from '../../platform/db/store'
import { fail } from '../../platform/errors/errors'
import type { PlansService } from '../plans/plans.service'
import type { CorporaRepo, CorpusRow } from './corpora.repo'

/** What creating a base needs: the service's store, clock, randomness, plans and repo. */
export interface CreateBaseDeps {
  store: Store
  clock: Clock
  random: Random
  plans?: Pick<PlansService, 'ensureRoom'>
  repo: CorporaRepo
}

/**
 * Creates an empty base under the plan's `bases` cap: counted, checked and inserted in one unit,
 * so a refused one writes nothing, and held (`holdInUnit`) so two creations at once cannot both
 * pass the cap: on SQLite units take turns on the one writer, on PostgreSQL an advisory lock on the
 * workspace's bases orders them.
 */
export async function createBase(
  d: CreateBaseDeps,
  workspaceId: string,
  name: string,
  opts: { autoOnboard?: boolean },
): Promise<CorpusRow> {
  const trimmed = name.trim()
  if (!trimmed) {
    throw fail('validation_error', 'The name must not be empty.', [
      { loc: ['body', 'name'], msg: 'The name must not be empty', type: 'string_too_short' },
    ])
  }
  const id = newId(d.random, 'cor')
  const now = d.clock.now().getTime()
  return d.store.unit(async () => {
    await holdInUnit(d.store, `bases:${workspaceId}`)
    await d.plans?.ensureRoom(workspaceId, 'bases', await d.repo.countAll(workspaceId))
    await d.repo.insert({ id, workspaceId, name: trimmed, autoOnboard: opts.autoOnboard ?? true, now })
    return (await d.repo.get(workspaceId, id))!
  })
}
