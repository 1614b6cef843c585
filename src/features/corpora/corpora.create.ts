import type { Clock } from '../../platform/clock/clock'
import { newId, type Random } from '../../platform/crypto/random'
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
 * so a refused one writes nothing. On SQLite units take turns on the one writer, so concurrent
 * creations cannot pass the cap; on PostgreSQL two units can both count before either inserts (an
 * open point of issue 39: a row lock on the workspace, as for members' seat cap).
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
    await d.plans?.ensureRoom(workspaceId, 'bases', await d.repo.countAll(workspaceId))
    await d.repo.insert({ id, workspaceId, name: trimmed, autoOnboard: opts.autoOnboard ?? true, now })
    return (await d.repo.get(workspaceId, id))!
  })
}
