import { afterEach, describe, expect, test } from 'bun:test'
import { DocumentRuns } from '../../src/features/corpora/corpora.runs'
import type { TestApp } from '../helpers/app'
import { createCorpus, upload } from '../helpers/ready-base'
import { authApp, signUp } from './accounts.fixture'

let t: TestApp
afterEach(() => t.close())

const status = async (id: string) =>
  (await t.sql.get<{ status: string }>('SELECT status FROM documents WHERE id = ?', id))?.status
const statuses = (...ids: string[]) => Promise.all(ids.map(status))

describe("onboarding runs move documents through corpora's lifecycle", () => {
  async function base() {
    t = authApp()
    const admin = await signUp(t)
    const corpusId = await createCorpus(t, admin.token, 'B')
    const [a, b] = await upload(t, admin.token, corpusId, [
      { path: 'a.txt', text: 'The 1973 oil crisis began in October 1973.' },
      { path: 'b.txt', text: 'Nikola Tesla was born in 1856.' },
    ])
    await t.jobs.scheduler.drain()
    return {
      corpusId,
      a: a!.id,
      b: b!.id,
      runs: new DocumentRuns({ store: t.store, events: t.events.outbox }),
    }
  }

  test('a run takes waiting documents; a failed one is refused with a 409 and nothing moves', async () => {
    const { corpusId, a, b, runs } = await base()
    const units = await runs.waiting(corpusId, { extracted: true })
    expect(units.map((u) => [u.id, u.status, u.textKey !== null])).toEqual([
      [a, 'pending', true],
      [b, 'pending', true],
    ])
    const failed = { ...units[1]!, status: 'failed' as const }
    await expect(runs.take([units[0]!, failed], 1)).rejects.toThrow('Document')
    expect(await statuses(a, b)).toEqual(['pending', 'pending'])
    await runs.take(units, 1)
    expect(await statuses(a, b)).toEqual(['onboarding', 'onboarding'])
    // A stopped run puts them back to waiting.
    await runs.release(corpusId, 2)
    expect(await statuses(a, b)).toEqual(['pending', 'pending'])
  }, 30_000)

  test('settling leaves a document alone once it moved where it may not become ready (failed meanwhile)', async () => {
    const { corpusId, a, b, runs } = await base()
    const units = await runs.waiting(corpusId, { extracted: true })
    await runs.take(units, 1)
    await t.sql.run("UPDATE documents SET status = 'failed' WHERE id = ?", b)
    await runs.settle({ ready: units, failed: [], parents: [] }, 2)
    expect(await statuses(a, b)).toEqual(['ready', 'failed'])
    expect(await runs.fileCounts(corpusId)).toEqual({ ready: 1, failed: 1, pending: 0 })
  }, 30_000)
})
