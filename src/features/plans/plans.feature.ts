import { closeSync, openSync, readSync } from 'node:fs'
import type { Config } from '../../platform/config/config.load'
import type { Feature, Platform } from '../../platform/feature/feature'
import type { WorkspacesService } from '../workspaces/workspaces.service'
import { DEFAULT_PLANS } from './plans.defaults'
import { loadPlansFile, PlansFileError } from './plans.load'
import { plansRoutes } from './plans.routes'
import type { PlanDef } from './plans.schemas'
import { PlansService } from './plans.service'

/** Reads at most `maxBytes` of a file; null when it cannot be opened. */
function readBounded(path: string, maxBytes: number): string | null {
  let fd: number
  try {
    fd = openSync(path, 'r')
  } catch {
    return null
  }
  try {
    const buf = Buffer.alloc(maxBytes)
    const n = readSync(fd, buf, 0, maxBytes, 0)
    return buf.subarray(0, n).toString('utf8')
  } finally {
    closeSync(fd)
  }
}

/**
 * The plans in force: the operator's file when one is named, else the defaults. Throws
 * `PlansFileError` (the server does not start) on a file that is missing or wrong.
 */
export function plansInForce(config: Pick<Config, 'billing' | 'accounts'>): PlanDef[] {
  const file = config.billing.plans_file
  const defaultPlan = config.accounts.default_plan
  if (file) return loadPlansFile(file, defaultPlan, readBounded)
  if (!DEFAULT_PLANS.some((p) => p.id === defaultPlan)) {
    throw new PlansFileError('(built-in plans)', [
      `the default plan "${defaultPlan}" (ENGRAM_DEFAULT_PLAN) is not one of them; name a plans file (ENGRAM_PLANS_FILE) that defines it`,
    ])
  }
  return DEFAULT_PLANS
}

/** Plans: their definitions, `GET /plans`, and which plan a workspace is on (its caps). */
export function plansFeature(
  p: Platform,
  d: { config: Pick<Config, 'billing' | 'accounts'>; workspaces: WorkspacesService },
): Feature<PlansService> {
  const service = new PlansService(
    { store: p.store, events: p.events, workspaces: d.workspaces },
    plansInForce(d.config),
    d.config.accounts.default_plan,
  )
  return { name: 'plans', service, routes: plansRoutes(service) }
}
