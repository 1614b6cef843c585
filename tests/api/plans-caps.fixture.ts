import { expect } from 'bun:test'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestApp } from '../helpers/app'
import { authApp } from './accounts.fixture'

/**
 * Helpers of the documents and storage cap tests: an app on a plans file of small plans, moving a
 * workspace between them, and the 403 `plan_limit_reached` a cap answers.
 */

const caps = (documents: number | null, storage: number | null) => ({
  bases: null,
  documents,
  storage_bytes: storage,
  queries_per_month: null,
  seats: null,
  api_keys: null,
})
const plan = (id: string, c: ReturnType<typeof caps>) => ({
  id,
  name: id,
  prices: { currency: 'usd', month: 0, year: 0 },
  caps: c,
  public: true,
})

/** The plans of these tests: a few documents, a few bytes, ten documents, and no cap. */
export const CAP_PLANS = [
  plan('three', caps(3, null)),
  plan('bytes', caps(null, 100)),
  plan('ten', caps(10, null)),
  plan('roomy', caps(null, null)),
]

/** An app whose plans are CAP_PLANS (new workspaces on `roomy`), billing off as by default. */
export function capsApp(env: Record<string, string> = {}): TestApp {
  const file = join(mkdtempSync(join(tmpdir(), 'engram-caps-')), 'plans.json')
  writeFileSync(file, JSON.stringify({ plans: CAP_PLANS }))
  return authApp({ env: { ENGRAM_PLANS_FILE: file, ENGRAM_DEFAULT_PLAN: 'roomy', ...env } })
}

/** Moves a workspace to a plan, as `engram plan set` does (the next request uses it). */
export async function putOnPlan(t: TestApp, workspaceId: string, planId: string): Promise<void> {
  await t.sql.runElsewhere('UPDATE workspaces SET plan = ? WHERE id = ?', planId, workspaceId)
}

/** Asserts a `/v1` 403 `plan_limit_reached` with its details. */
export async function expectCapRefusal(
  res: Response,
  details: { cap: 'documents' | 'storage_bytes'; limit: number; used: number },
): Promise<void> {
  expect(res.status).toBe(403)
  const body = (await res.json()) as { error: { code: string; details: unknown; message: string } }
  expect(body.error.code).toBe('plan_limit_reached')
  expect(body.error.details).toEqual(details)
}
