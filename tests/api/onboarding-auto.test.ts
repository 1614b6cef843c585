import { afterEach, describe, expect, test } from 'bun:test'
import { loadConfig } from '../../src/platform/config/config.load'
import type { TestApp } from '../helpers/app'
import { type FixtureFile, readyBase, upload } from '../helpers/ready-base'
import { authApp, bearer, expectError, mintKey, rows, signUp } from './accounts.fixture'
import { sha256 } from './ingest.fixture'

// Documents added to a base that has been onboarded are onboarded by themselves (auto_onboard, on
// by default): a sync run that ends with new or changed documents schedules one `train_auto` job,
// due two seconds later and put off by later arrivals; it starts one run over what is extracted.
// The scheduler and the dispatcher are stepped by hand, with the manual clock.

let t: TestApp
afterEach(() => t.close())

const FILES: FixtureFile[] = [
  {
    path: 'oil.txt',
    text: 'The 1973 oil crisis began in October 1973 when OAPEC proclaimed an oil embargo.',
  },
  {
    path: 'plague.txt',
    text: 'The Black Death was a bubonic plague pandemic that peaked in Europe from 1347 to 1351.',
  },
]
const RHINE: FixtureFile = {
  path: 'rhine.txt',
  text: 'The Rhine begins in the Swiss Alps at Lake Toma and flows into the North Sea at Rotterdam.',
}

// biome-ignore lint/suspicious/noExplicitAny: the bodies of several routes, read field by field
const get = async (token: string, path: string): Promise<any> =>
  (await t.request(path, { headers: bearer(token) })).json()

/** Runs due jobs and delivers the events they emitted, until neither has anything left. */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) {
    await t.jobs.scheduler.drain()
    const pending = await rows(t, 'domain_events', 'delivered_at IS NULL')
    await t.events.dispatcher.drain()
    if (pending === 0) return
  }
}

/** Onboarding jobs of a base by kind, oldest first. */
async function jobs(token: string, corpusId: string, kind: string) {
  const list = (await get(token, `/v1/corpora/${corpusId}/jobs?kind=${kind}&limit=500`)).items as {
    id: string
    kind: string
    status: string
    auto: boolean
    detail: string | null
    units_failed: number
  }[]
  return list.reverse()
}

/** Pushes files through the protocol (upload-urls, raw PUTs, commit); returns the sync run. */
async function push(token: string, corpusId: string, files: FixtureFile[]) {
  const manifest = files.map((f) => ({
    path: f.path,
    sha256: sha256(f.text),
    size: Buffer.byteLength(f.text),
  }))
  const post = (route: string, json: unknown) =>
    t.request(`/v1/corpora/${corpusId}/documents/${route}`, { method: 'POST', headers: bearer(token), json })
  const plan = (await (await post('upload-urls', { files: manifest })).json()) as {
    uploads: { path: string; upload: boolean; url: string; headers?: Record<string, string> }[]
  }
  for (const u of plan.uploads.filter((x) => x.upload)) {
    const body = files.find((f) => f.path === u.path)!.text
    // The app's raw route on local storage; on S3 (the PostgreSQL pass) a presigned URL of the
    // bucket's, whose signature is the permission.
    const put = u.url.startsWith('/')
      ? await t.request(u.url, { method: 'PUT', headers: bearer(token), body })
      : await fetch(u.url, { method: 'PUT', headers: u.headers, body })
    expect(put.status).toBe(200)
  }
  const res = await post('commit', { files: manifest })
  expect(res.status).toBe(202)
  return (await res.json()) as { id: string }
}

const ask = async (key: string, corpusId: string, question: string) =>
  (await (
    await t.request(`/v1/corpora/${corpusId}/chat`, {
      method: 'POST',
      headers: bearer(key),
      json: { question },
    })
  ).json()) as { answered: boolean; used_docs: string[]; answer: string }

describe('automatic onboarding', () => {
  test('a push of many files into an onboarded base starts one run by itself, and the new documents answer', async () => {
    t = authApp()
    const b = await readyBase(t, FILES)
    const notes = Array.from({ length: 40 }, (_, i) => ({
      path: `notes/n${i}.txt`,
      text: `Note ${i}: the archive keeps the code word w${i} in drawer ${i}.`,
    }))
    await push(b.adminToken, b.corpusId, [RHINE, ...notes])
    await settle()
    // Extracted, waiting: the base still answers from the rest and says how many wait.
    let base = await get(b.adminToken, `/v1/corpora/${b.corpusId}`)
    expect(base).toMatchObject({
      status: 'ready',
      auto_onboard: true,
      n_documents: 43,
      documents_ready: 2,
      documents_pending: 41,
      documents_onboarding: 0,
    })
    const waiting = await jobs(b.adminToken, b.corpusId, 'train_auto')
    expect(waiting.map((j) => [j.status, j.auto])).toEqual([['pending', true]])
    expect((await ask(b.keys.query, b.corpusId, 'Where does the Rhine begin?')).used_docs).not.toContain(
      (await get(b.adminToken, `/v1/corpora/${b.corpusId}/documents?limit=500`)).items.find(
        (d: { filename: string }) => d.filename === 'rhine.txt',
      ).id,
    )
    t.clock.advance(2_000)
    await settle()
    base = await get(b.adminToken, `/v1/corpora/${b.corpusId}`)
    expect(base).toMatchObject({
      status: 'ready',
      documents_ready: 43,
      documents_pending: 0,
      documents_onboarding: 0,
    })
    // One run for the whole push, besides the first; started by itself.
    const runs = await jobs(b.adminToken, b.corpusId, 'train')
    expect(runs.map((r) => [r.status, r.auto])).toEqual([
      ['succeeded', false],
      ['succeeded', true],
    ])
    expect(runs[1]!.detail).toBe('41 section(s) onboarded, 0 failed')
    const trigger = (await jobs(b.adminToken, b.corpusId, 'train_auto'))[0]!
    expect(trigger).toMatchObject({
      status: 'succeeded',
      detail: `Started run ${runs[1]!.id} over 41 new section(s).`,
    })
    const answer = await ask(b.keys.query, b.corpusId, 'Where does the Rhine begin?')
    expect(answer.answered).toBe(true)
    expect(answer.answer).toContain('Lake Toma')
  })

  test('uploads that keep arriving put the run off (at most a minute), so one run takes them all', async () => {
    t = authApp()
    const b = await readyBase(t, FILES)
    // A folder uploaded file by file: one sync run a request, a second apart.
    for (let i = 0; i < 5; i++) {
      await upload(t, b.adminToken, b.corpusId, [
        { path: `f${i}.txt`, text: `File ${i} holds the word q${i}.` },
      ])
      await settle()
      t.clock.advance(1_000)
      await settle()
    }
    expect(await jobs(b.adminToken, b.corpusId, 'train')).toHaveLength(1)
    expect((await jobs(b.adminToken, b.corpusId, 'train_auto')).map((j) => j.status)).toEqual(['pending'])
    t.clock.advance(1_000)
    await settle()
    const runs = await jobs(b.adminToken, b.corpusId, 'train')
    expect(runs.map((r) => r.detail)).toEqual([
      '2 section(s) onboarded, 0 failed',
      '5 section(s) onboarded, 0 failed',
    ])
    // Arrivals that never stop still get a run a minute after the first of them.
    for (let i = 0; i < 45; i++) {
      await upload(t, b.adminToken, b.corpusId, [{ path: `g${i}.txt`, text: `Later file ${i}, word z${i}.` }])
      await settle()
      t.clock.advance(1_500)
    }
    await settle()
    // The run due a minute after the first of them took what was extracted by then: 40 files, or 41
    // when the file uploaded at that very moment, extracted in the same scheduler step as the run starts,
    // was ready before the run read its documents (which of two jobs of one step gets there first is
    // not promised, and on PostgreSQL it varies); the last few wait for a quiet moment.
    const later = (await jobs(b.adminToken, b.corpusId, 'train')).slice(2)
    const onboarded = later.map((r) => Number(r.detail?.split(' ')[0]))
    expect([40, 41]).toContain(onboarded[0]!)
    const base = await get(b.adminToken, `/v1/corpora/${b.corpusId}`)
    expect(base.documents_pending).toBe(45 - onboarded.reduce((a, n) => a + n, 0))
    expect(base.documents_pending).toBeGreaterThan(0)
    expect((await jobs(b.adminToken, b.corpusId, 'train_auto')).at(-1)!.status).toBe('pending')
  }, 60_000)

  test('the quiet time and the longest wait come from [onboarding] auto_delay_ms and auto_max_wait_ms', async () => {
    t = authApp({
      env: { ENGRAM_ONBOARDING_AUTO_DELAY_MS: '10000', ENGRAM_ONBOARDING_AUTO_MAX_WAIT_MS: '25000' },
    })
    const b = await readyBase(t, FILES)
    const runs = async () => (await jobs(b.adminToken, b.corpusId, 'train')).length
    await upload(t, b.adminToken, b.corpusId, [RHINE])
    await settle()
    // Not after the default 2 s: after 10 s of quiet.
    t.clock.advance(9_000)
    await settle()
    expect(await runs()).toBe(1)
    t.clock.advance(1_000)
    await settle()
    expect(await runs()).toBe(2)
    // Arrivals every 8 s keep putting the next run off, until 25 s after the first of them.
    for (let i = 0; i < 4; i++) {
      await upload(t, b.adminToken, b.corpusId, [{ path: `p${i}.txt`, text: `Paper ${i}, word y${i}.` }])
      await settle()
      expect(await runs()).toBe(2)
      t.clock.advance(8_000)
      await settle()
    }
    // The fourth arrived 24 s after the first; the run was due at 25 s and took them all.
    const last = (await jobs(b.adminToken, b.corpusId, 'train')).at(-1)!
    expect(await runs()).toBe(3)
    expect(last.detail).toBe('4 section(s) onboarded, 0 failed')
    // Out of bounds, the value is refused at start-up with the option named.
    const refused = (value: string) => () =>
      loadConfig({ env: { ENGRAM_ONBOARDING_AUTO_DELAY_MS: value }, readFile: () => null })
    expect(refused('-1')).toThrow('ENGRAM_ONBOARDING_AUTO_DELAY_MS')
    expect(refused('3600001')).toThrow('ENGRAM_ONBOARDING_AUTO_DELAY_MS')
  })

  test('a run in flight is followed by another for the documents that arrived while it ran', async () => {
    t = authApp()
    const b = await readyBase(t, FILES)
    await upload(t, b.adminToken, b.corpusId, [RHINE])
    await settle()
    // Someone starts a run by hand; another process holds its batch (the run stays in flight).
    const manual = await (
      await t.request(`/v1/corpora/${b.corpusId}/train`, { method: 'POST', headers: bearer(b.adminToken) })
    ).json()
    expect(await t.jobs.queue.leaseRepo.claim(['train_batch'], 'other-process', 60_000, 10)).toHaveLength(1)
    const late: FixtureFile = { path: 'late.txt', text: 'The late note says the ferry leaves at noon.' }
    await upload(t, b.adminToken, b.corpusId, [late])
    await settle()
    expect(await get(b.adminToken, `/v1/corpora/${b.corpusId}`)).toMatchObject({
      status: 'training',
      documents_onboarding: 1,
      documents_pending: 1,
    })
    t.clock.advance(2_000)
    await settle()
    // Due while the run is in flight: it starts nothing, and says where the documents go.
    const [trigger] = await jobs(b.adminToken, b.corpusId, 'train_auto')
    expect(trigger).toMatchObject({
      status: 'succeeded',
      detail: `Run ${manual.id} is in flight; the new documents go to the run that follows it.`,
    })
    // The other process dies; its batch is taken up again, and the run's end starts the next one.
    t.clock.advance(61_000)
    await settle()
    const runs = await jobs(b.adminToken, b.corpusId, 'train')
    expect(runs.map((r) => [r.status, r.auto, r.detail])).toEqual([
      ['succeeded', false, '2 section(s) onboarded, 0 failed'],
      ['succeeded', false, '1 section(s) onboarded, 0 failed'],
      ['succeeded', true, '1 section(s) onboarded, 0 failed'],
    ])
    expect(await get(b.adminToken, `/v1/corpora/${b.corpusId}`)).toMatchObject({
      status: 'ready',
      documents_ready: 4,
      documents_pending: 0,
    })
  })

  test('a document a run already onboarded, changed again before the run ends, gets the run that follows', async () => {
    t = authApp()
    const b = await readyBase(t, FILES)
    // 32 notes of 18,000 characters fill a batch (32 units, past 512 KB); rhine.txt is the next one's.
    const notes = Array.from({ length: 32 }, (_, i) => ({
      path: `a${String(i).padStart(2, '0')}.txt`,
      text: `Note ${i} keeps the word k${i}. ${'The archive is quiet. '.repeat(820)}`,
    }))
    await upload(t, b.adminToken, b.corpusId, [...notes, RHINE])
    await settle()
    const manual = await (
      await t.request(`/v1/corpora/${b.corpusId}/train`, { method: 'POST', headers: bearer(b.adminToken) })
    ).json()
    expect(manual.units_total).toBe(33)
    // Another process holds the notes' batch (the run stays in flight); rhine.txt's batch runs here.
    expect(await t.jobs.queue.leaseRepo.claim(['train_batch'], 'other-process', 60_000, 1)).toHaveLength(1)
    await settle()
    const rhine = (await get(b.adminToken, `/v1/corpora/${b.corpusId}/documents?limit=500`)).items.find(
      (d: { filename: string }) => d.filename === 'rhine.txt',
    )
    expect(rhine.status).toBe('ready')
    // rhine.txt changes while the run is still in flight, after the run onboarded it.
    const changed: FixtureFile = {
      path: 'rhine.txt',
      text: 'The Rhine begins at the Rheinquelle spring and its new ferry to Basel leaves at dawn.',
    }
    await upload(t, b.adminToken, b.corpusId, [changed])
    await settle()
    expect(await get(b.adminToken, `/v1/corpora/${b.corpusId}`)).toMatchObject({
      status: 'training',
      documents_pending: 1,
    })
    t.clock.advance(2_000)
    await settle()
    const [trigger] = await jobs(b.adminToken, b.corpusId, 'train_auto')
    expect(trigger!.detail).toBe(
      `Run ${manual.id} is in flight; the new documents go to the run that follows it.`,
    )
    // The other process dies; the run ends, and the document it took before the change is followed.
    t.clock.advance(61_000)
    await settle()
    const runs = await jobs(b.adminToken, b.corpusId, 'train')
    expect(runs.map((r) => [r.status, r.auto, r.detail])).toEqual([
      ['succeeded', false, '2 section(s) onboarded, 0 failed'],
      ['succeeded', false, '33 section(s) onboarded, 0 failed'],
      ['succeeded', true, '1 section(s) onboarded, 0 failed'],
    ])
    expect(await get(b.adminToken, `/v1/corpora/${b.corpusId}`)).toMatchObject({
      status: 'ready',
      documents_ready: 35,
      documents_pending: 0,
    })
    const answer = await ask(b.keys.query, b.corpusId, 'Where does the ferry to Basel leave?')
    expect(answer.answered).toBe(true)
    expect(answer.answer).toContain('dawn')
  }, 60_000)

  test('canceling stops a run waiting to start, and a canceled run is not followed', async () => {
    t = authApp()
    const b = await readyBase(t, FILES)
    const base = () => get(b.adminToken, `/v1/corpora/${b.corpusId}`)
    expect(await base()).toMatchObject({ auto_onboard: true, auto_onboard_paused: false })
    await upload(t, b.adminToken, b.corpusId, [RHINE])
    await settle()
    const res = await t.request(`/v1/corpora/${b.corpusId}/cancel`, {
      method: 'POST',
      headers: bearer(b.adminToken),
    })
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({
      kind: 'train_auto',
      status: 'canceled',
      auto: true,
      detail:
        'Canceled: the waiting documents are onboarded once documents are added or changed, or a run is started.',
    })
    t.clock.advance(5_000)
    await settle()
    expect(await jobs(b.adminToken, b.corpusId, 'train')).toHaveLength(1)
    // The base says its waiting document is not onboarded by itself now.
    expect(await base()).toMatchObject({ documents_pending: 1, auto_onboard_paused: true })
    // A run canceled while documents wait is not followed by another.
    const run = await (
      await t.request(`/v1/corpora/${b.corpusId}/train`, { method: 'POST', headers: bearer(b.adminToken) })
    ).json()
    expect(await base()).toMatchObject({ status: 'training', auto_onboard_paused: false })
    expect(await t.jobs.queue.leaseRepo.claim(['train_batch'], 'other-process', 60_000, 10)).toHaveLength(1)
    await upload(t, b.adminToken, b.corpusId, [{ path: 'late.txt', text: 'A late note.' }])
    await settle()
    await t.request(`/v1/corpora/${b.corpusId}/cancel`, { method: 'POST', headers: bearer(b.adminToken) })
    t.clock.advance(61_000)
    await settle()
    expect((await get(b.adminToken, `/v1/jobs/${run.id}`)).status).toBe('canceled')
    expect((await jobs(b.adminToken, b.corpusId, 'train')).map((r) => r.status)).toEqual([
      'succeeded',
      'canceled',
    ])
    expect(await base()).toMatchObject({ status: 'ready', documents_pending: 2, auto_onboard_paused: true })
    // The next document added ends the pause: the run that starts takes every waiting document.
    await upload(t, b.adminToken, b.corpusId, [{ path: 'next.txt', text: 'The next note.' }])
    await settle()
    expect(await base()).toMatchObject({ documents_pending: 3, auto_onboard_paused: false })
    t.clock.advance(2_000)
    await settle()
    expect(await base()).toMatchObject({
      documents_pending: 0,
      documents_ready: 5,
      auto_onboard_paused: false,
    })
    expect((await jobs(b.adminToken, b.corpusId, 'train')).at(-1)).toMatchObject({
      auto: true,
      detail: '3 section(s) onboarded, 0 failed',
    })
    // Nothing to cancel is a 409, and pauses nothing.
    await expectError(
      await t.request(`/v1/corpora/${b.corpusId}/cancel`, { method: 'POST', headers: bearer(b.adminToken) }),
      '/v1',
      409,
      'no_training_in_progress',
    )
    expect(await base()).toMatchObject({ auto_onboard_paused: false })
  })

  test('a base never onboarded, or with auto_onboard off, waits for someone to start a run', async () => {
    t = authApp()
    const admin = await signUp(t)
    // Never onboarded: its first run is someone's choice (the console shows the estimate first).
    const fresh = await (
      await t.request('/v1/corpora', { method: 'POST', headers: bearer(admin.token), json: { name: 'New' } })
    ).json()
    expect(fresh).toMatchObject({ auto_onboard: true, status: 'new', documents_pending: 0 })
    await upload(t, admin.token, fresh.id, FILES)
    await settle()
    t.clock.advance(120_000)
    await settle()
    expect(await get(admin.token, `/v1/corpora/${fresh.id}`)).toMatchObject({
      status: 'new',
      documents_pending: 2,
      documents_onboarding: 0,
    })
    expect(await rows(t, 'jobs', "kind IN ('train', 'train_auto')")).toBe(0)

    // Switched off at creation: onboarded once by hand, new documents then wait.
    const off = await (
      await t.request('/v1/corpora', {
        method: 'POST',
        headers: bearer(admin.token),
        json: { name: 'Manual', auto_onboard: false },
      })
    ).json()
    expect(off.auto_onboard).toBe(false)
    await upload(t, admin.token, off.id, FILES)
    await settle()
    await t.request(`/v1/corpora/${off.id}/train`, { method: 'POST', headers: bearer(admin.token) })
    await settle()
    await upload(t, admin.token, off.id, [RHINE])
    await settle()
    t.clock.advance(120_000)
    await settle()
    expect(await get(admin.token, `/v1/corpora/${off.id}`)).toMatchObject({
      status: 'ready',
      documents_pending: 1,
    })
    // Switched on: the next arrival brings the waiting one along.
    const on = await t.request(`/v1/corpora/${off.id}`, {
      method: 'PATCH',
      headers: bearer(admin.token),
      json: { auto_onboard: true },
    })
    expect(on.status).toBe(200)
    expect(await on.json()).toMatchObject({ id: off.id, auto_onboard: true })
    await upload(t, admin.token, off.id, [{ path: 'next.txt', text: 'The next note.' }])
    await settle()
    t.clock.advance(2_000)
    await settle()
    expect(await get(admin.token, `/v1/corpora/${off.id}`)).toMatchObject({
      documents_pending: 0,
      documents_ready: 4,
    })
  })

  test('PATCH needs the ingest scope, refuses unknown fields and another workspace’s base, and writes nothing then', async () => {
    t = authApp()
    const admin = await signUp(t)
    const base = await (
      await t.request('/v1/corpora', { method: 'POST', headers: bearer(admin.token), json: { name: 'B' } })
    ).json()
    const patch = (token: string, json: unknown, path = `/v1/corpora/${base.id}`) =>
      t.request(path, { method: 'PATCH', headers: bearer(token), json })
    const query = (await mintKey(t, admin.token, ['query'])).key
    await expectError(await patch(query, { auto_onboard: false }), '/v1', 403, 'missing_scope')
    await expectError(await patch(admin.token, { auto_onboard: 'no' }), '/v1', 422, 'validation_error')
    await expectError(await patch(admin.token, { auto_onbaord: false }), '/v1', 422, 'validation_error')
    const other = await signUp(t)
    await expectError(await patch(other.token, { auto_onboard: false }), '/v1', 404, 'not_found')
    expect((await get(admin.token, `/v1/corpora/${base.id}`)).auto_onboard).toBe(true)
    // The frozen mount has it too; an empty body changes nothing.
    expect(
      await (await patch(admin.token, { auto_onboard: false }, `/corpora/${base.id}`)).json(),
    ).toMatchObject({
      auto_onboard: false,
    })
    expect(await (await patch(admin.token, {})).json()).toMatchObject({ auto_onboard: false })
  })
})

describe('states that agree', () => {
  test('documents_onboarding counts documents in a run; documents_pending those waiting for one', async () => {
    t = authApp()
    const admin = await signUp(t)
    const base = await (
      await t.request('/v1/corpora', { method: 'POST', headers: bearer(admin.token), json: { name: 'B' } })
    ).json()
    await upload(t, admin.token, base.id, FILES)
    // Before extraction and after it: waiting, not onboarding.
    expect(await get(admin.token, `/v1/corpora/${base.id}`)).toMatchObject({
      documents_pending: 2,
      documents_onboarding: 0,
    })
    await settle()
    expect(await get(admin.token, `/v1/corpora/${base.id}`)).toMatchObject({
      documents_pending: 2,
      documents_onboarding: 0,
    })
    await t.request(`/v1/corpora/${base.id}/train`, { method: 'POST', headers: bearer(admin.token) })
    expect(await get(admin.token, `/v1/corpora/${base.id}`)).toMatchObject({
      status: 'training',
      documents_pending: 0,
      documents_onboarding: 2,
    })
    await settle()
    expect(await get(admin.token, `/v1/corpora/${base.id}`)).toMatchObject({
      status: 'ready',
      documents_ready: 2,
      documents_pending: 0,
      documents_onboarding: 0,
    })
  })

  test('a run that could not onboard some documents succeeds, and says how many failed', async () => {
    t = authApp()
    const admin = await signUp(t)
    const base = await (
      await t.request('/v1/corpora', { method: 'POST', headers: bearer(admin.token), json: { name: 'B' } })
    ).json()
    const docs = await upload(t, admin.token, base.id, FILES)
    await settle()
    // One document's extracted text is lost from the store: its onboarding fails, the other's does not.
    const textKey = (await t.sql.get<{ k: string }>(
      'SELECT text_key AS k FROM documents WHERE id = ?',
      docs[0]!.id,
    ))!.k
    await t.deps.objects.delete(textKey)
    const run = await (
      await t.request(`/v1/corpora/${base.id}/train`, { method: 'POST', headers: bearer(admin.token) })
    ).json()
    expect(run.units_failed).toBe(0)
    await settle()
    const done = await get(admin.token, `/v1/jobs/${run.id}`)
    expect(done).toMatchObject({
      status: 'succeeded',
      units_failed: 1,
      units_total: 2,
      detail: '1 section(s) onboarded, 1 failed',
      auto: false,
    })
    const batches = await jobs(admin.token, base.id, 'train_batch')
    expect(batches.map((j) => j.units_failed)).toEqual([1])
    expect(await get(admin.token, `/v1/corpora/${base.id}`)).toMatchObject({
      status: 'ready',
      documents_ready: 1,
      documents_failed: 1,
    })
  })
})

describe('the first run of a new base', () => {
  const DOCS = 'tests/fixtures/data/docs'
  const send = async (token: string, corpusId: string, path: string, type: string) => {
    const form = new FormData()
    const bytes = await Bun.file(`${DOCS}/${path}`).arrayBuffer()
    form.append('files', new File([bytes], path.split('/').pop()!, { type }))
    const res = await t.request(`/v1/corpora/${corpusId}/documents`, {
      method: 'POST',
      headers: bearer(token),
      body: form,
    })
    expect(res.status).toBe(200)
  }

  for (const extractedFirst of [true, false]) {
    test(`is not followed by an automatic run when nothing waits (${extractedFirst ? 'extracted first' : 'started at once'})`, async () => {
      t = authApp()
      const admin = await signUp(t)
      const base = await (
        await t.request('/v1/corpora', {
          method: 'POST',
          headers: bearer(admin.token),
          json: { name: 'New' },
        })
      ).json()
      // Three uploads, a multi-section PDF among them; Start onboarding is clicked once they are in.
      await send(
        admin.token,
        base.id,
        'pdf/Unstructured-IO_unstructured__layout-parser-paper-fast.pdf',
        'application/pdf',
      )
      await send(admin.token, base.id, 'csv/mwaskom_seaborn-data__penguins.csv', 'text/csv')
      await send(admin.token, base.id, 'html/Unstructured-IO_unstructured__example-10k-1p.html', 'text/html')
      if (extractedFirst) await settle()
      const res = await t.request(`/v1/corpora/${base.id}/train`, {
        method: 'POST',
        headers: bearer(admin.token),
      })
      expect(res.status).toBe(200)
      await settle()
      t.clock.advance(120_000)
      await settle()
      expect(await rows(t, 'jobs', "kind = 'train_auto'")).toBe(0)
      expect(await get(admin.token, `/v1/corpora/${base.id}`)).toMatchObject({
        status: 'ready',
        documents_pending: 0,
        documents_onboarding: 0,
      })
      expect((await jobs(admin.token, base.id, 'train')).map((r) => r.auto)).toEqual([false])
      // The run's figures are every section it onboarded, also those a batch onboarded before it
      // waited for an extraction and was tried again.
      const sections = await rows(
        t,
        'documents',
        `corpus_id = '${base.id}' AND status = 'ready' AND id NOT IN
        (SELECT parent_id FROM documents WHERE parent_id IS NOT NULL)`,
      )
      const [run] = await jobs(admin.token, base.id, 'train')
      expect(run!.detail).toBe(`${sections} section(s) onboarded, 0 failed`)
    }, 60_000)
  }
})
