import { afterEach, describe, expect, test } from 'bun:test'
import { EXTRACT_JOB } from '../../src/features/ingest/ingest.types'
import type { TestApp } from '../helpers/app'
import { createCorpus, upload } from '../helpers/ready-base'
import { authApp, bearer, signUp } from './accounts.fixture'

// A run started before its documents' text is extracted (a person pressing "Start onboarding" just
// after an upload, or behind a long queue of extractions): its batch waits for the extraction without
// spending its attempts, looking again soon at first and less often the longer it waits, and goes on
// as soon as the text is there.

let t: TestApp
afterEach(() => t.close())

type BatchRow = {
  status: string
  attempts: number
  max_attempts: number
  run_at: number
  error: string | null
}

describe('a batch waiting for a text extraction', () => {
  test('waits as long as the extraction takes, past its attempts, each wait longer, then onboards', async () => {
    t = authApp()
    const admin = await signUp(t)
    const corpusId = await createCorpus(t, admin.token, 'B')
    await upload(t, admin.token, corpusId, [
      {
        // HTML, read by an extraction job (a plain text file would be read as it is uploaded).
        path: 'oil.html',
        text: '<p>The 1973 oil crisis began in October 1973 when OAPEC proclaimed an oil embargo.</p>',
        type: 'text/html',
      },
    ])
    // The extraction is queued behind other work: not due for an hour.
    const later = t.clock.now().getTime() + 3_600_000
    await t.sql.run('UPDATE jobs SET run_at = ? WHERE kind = ?', later, EXTRACT_JOB)
    const started = await t.request(`/v1/corpora/${corpusId}/train`, {
      method: 'POST',
      headers: bearer(admin.token),
    })
    expect(started.status).toBe(200)
    const run = (await started.json()) as { id: string }
    const batch = () =>
      t.sql.get<BatchRow>(
        'SELECT status, attempts, max_attempts, run_at, error FROM jobs WHERE parent_id = ?',
        run.id,
      ) as Promise<BatchRow>

    await t.jobs.scheduler.drain()
    let b = await batch()
    expect(b).toMatchObject({
      status: 'pending',
      attempts: 0,
      error: 'Waiting for the text extraction of oil.html.',
    })
    // Looked at again at the scheduler's next step at first (due 20 ms later).
    expect(b.run_at - t.clock.now().getTime()).toBe(20)
    const waits: number[] = []
    for (let i = 0; i < b.max_attempts + 5; i++) {
      t.clock.advance(b.run_at - t.clock.now().getTime())
      await t.jobs.scheduler.drain()
      b = await batch()
      expect(b).toMatchObject({ status: 'pending', attempts: 0 })
      waits.push(b.run_at - t.clock.now().getTime())
    }
    // Each wait a tenth of the time waited so far, never more than five seconds.
    for (let i = 1; i < waits.length; i++) expect(waits[i]!).toBeGreaterThanOrEqual(waits[i - 1]!)
    expect(waits.at(-1)).toBeGreaterThan(20)
    expect(Math.max(...waits)).toBeLessThanOrEqual(5_000)
    // Ten minutes on, it looks every five seconds.
    t.clock.advance(600_000)
    await t.jobs.scheduler.drain()
    b = await batch()
    expect(b).toMatchObject({ status: 'pending', attempts: 0 })
    expect(b.run_at - t.clock.now().getTime()).toBe(5_000)
    const runRow = await t.sql.get<{ status: string }>('SELECT status FROM jobs WHERE id = ?', run.id)
    expect(runRow?.status).toBe('running')

    // The extraction's turn comes: the batch goes on at its next look, and the run ends ready.
    await t.sql.run('UPDATE jobs SET run_at = ? WHERE kind = ?', t.clock.now().getTime(), EXTRACT_JOB)
    await t.jobs.scheduler.drain()
    t.clock.advance(b.run_at - t.clock.now().getTime())
    await t.jobs.scheduler.drain()
    expect(await batch()).toMatchObject({ status: 'succeeded', attempts: 1, error: null })
    const done = (await (await t.request(`/v1/jobs/${run.id}`, { headers: bearer(admin.token) })).json()) as {
      status: string
    }
    expect(done.status).toBe('succeeded')
    const base = (await (
      await t.request(`/v1/corpora/${corpusId}`, { headers: bearer(admin.token) })
    ).json()) as {
      documents_ready: number
    }
    expect(base.documents_ready).toBe(1)
  })
})
