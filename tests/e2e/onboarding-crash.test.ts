import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type RunningBinary, signUpOn, startBinary } from '../helpers/binary'

// Issue 18, item 7: the real executable is killed (SIGKILL) in the middle of an onboarding run and
// started again on the same data dir with a ten-minute job lease. The restarted server must resume
// the run at once, not after the lease, and finish it with every document ready.

let dir = ''
let server: RunningBinary | null = null
const LEASE_SECONDS = '600'

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'engram-onboard-crash-'))
})
afterAll(async () => {
  await server?.stop()
  rmSync(dir, { recursive: true, force: true })
})

/** Deterministic prose: sentences of words drawn by a seeded generator. */
function prose(seed: number, words: number): string {
  const vocabulary =
    'river harbour engine ledger silver council winter orchard signal market canal quarry lantern meadow archive beacon'.split(
      ' ',
    )
  let x = seed
  const out: string[] = []
  for (let i = 0; i < words; i++) {
    x = (x * 1103515245 + 12345) % 2 ** 31
    out.push(vocabulary[x % vocabulary.length]!)
    if (i % 12 === 11) out.push('.')
  }
  return out.join(' ')
}

const start = () =>
  startBinary({
    cwd: dir,
    env: {
      ENGRAM_DATA_DIR: join(dir, 'data'),
      ENGRAM_JOB_LEASE_SECONDS: LEASE_SECONDS,
      ENGRAM_LOG_LEVEL: 'info',
    },
  })

test('a server killed mid-onboarding resumes the run at once after a restart and finishes it', async () => {
  server = await start()
  const api = (path: string, init: RequestInit = {}) => fetch(`${server!.url}${path}`, init)
  const auth = await signUpOn(server.url, 'onboard-crash@example.com', 'Crash')
  const corpusId = (
    (await (
      await api('/v1/corpora', {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Crash' }),
      })
    ).json()) as { id: string }
  ).id
  const files = 120
  for (let batch = 0; batch < files; batch += 40) {
    const form = new FormData()
    for (let i = batch; i < batch + 40; i++)
      form.append('files', new File([prose(i + 1, 6000)], `doc-${i}.txt`))
    const up = await api(`/v1/corpora/${corpusId}/documents`, { method: 'POST', headers: auth, body: form })
    expect(up.status).toBe(200)
  }
  const run = (await (
    await api(`/v1/corpora/${corpusId}/train`, { method: 'POST', headers: auth })
  ).json()) as {
    id: string
  }
  const job = async () =>
    (await (await api(`/v1/jobs/${run.id}`, { headers: auth })).json()) as {
      status: string
      progress: number
    }
  // Killed once some of the run is done and some is not.
  for (let i = 0; i < 3000; i++) {
    const j = await job()
    expect(j.status).not.toBe('succeeded')
    if (j.progress > 0) break
    await Bun.sleep(10)
  }
  server.proc.kill('SIGKILL')
  await server.proc.exited

  server = await start()
  const s = server
  const resumed = await s.waitForLine((l) => l.msg === 'jobs resumed from a process that stopped')
  expect(resumed.count).toBeGreaterThanOrEqual(1)
  // No line says a lease had to expire first.
  expect(s.lines.some((l) => l.msg === 'jobs recovered after an expired lease')).toBe(false)
  let done = await job()
  for (let i = 0; i < 6000 && done.status !== 'succeeded'; i++) {
    expect(['running', 'pending']).toContain(done.status)
    await Bun.sleep(10)
    done = await job()
  }
  expect(done).toMatchObject({ status: 'succeeded', progress: 1 })
  const base = await (await api(`/v1/corpora/${corpusId}`, { headers: auth })).json()
  expect(base).toMatchObject({
    status: 'ready',
    n_documents: files,
    documents_ready: files,
    documents_failed: 0,
  })
})
