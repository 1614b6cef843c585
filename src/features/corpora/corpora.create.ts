import type { Clock } from '../../platform/clock/clock'
import { newId, type Random } from '../../platform/crypto/random'
import type { Db } from '../../platform/db/db'
import { transaction } from '../../platform/db/transaction'
import { fail } from '../../platform/errors/errors'
import type { PlansService } from '../plans/plans.service'
import type { CorporaRepo, CorpusRow } from './corpora.repo'

/** What creating a base needs: the service's store, clock, randomness, plans and repo. */
export interface CreateBaseDeps {
  db: Db
  clock: Clock
  random: Random
  plans?: Pick<PlansService, 'ensureRoom'>
  repo: CorporaRepo
}

/**
 * Creates an empty base under the plan's `bases` cap: counted, checked and inserted in one
 * transaction, so concurrent creations cannot pass the cap and a refused one writes nothing.
 * bun:sqlite runs the transaction synchronously on the one connection; on PostgreSQL (issue 39)
 * the count needs a row lock on the workspace (a locking read) to keep that promise.
 */
export function createBase(
  d: CreateBaseDeps,
  workspaceId: string,
  name: string,
  opts: { autoOnboard?: boolean },
): CorpusRow {
  const trimmed = name.trim()
  if (!trimmed) {
    throw fail('validation_error', 'The name must not be empty.', [
      { loc: ['body', 'name'], msg: 'The name must not be empty', type: 'string_too_short' },
    ])
  }
  const id = newId(d.random, 'cor')
  const now = d.clock.now().getTime()
  transaction(d.db, () => {
    d.plans?.ensureRoom(workspaceId, 'bases', d.repo.countAll(workspaceId))
    d.repo.insert({ id, workspaceId, name: trimmed, autoOnboard: opts.autoOnboard ?? true, now })
  })
  return d.repo.get(workspaceId, id)!
}
