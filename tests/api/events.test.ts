import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { DomainEvent, EventType } from '../../src/platform/events/events'
import type { TestApp } from '../helpers/app'
import { type ReadyBase, readyBase, train, upload } from '../helpers/ready-base'
import { authApp, bearer } from './accounts.fixture'
import { FILES } from './compare.fixture'

// What the features tell as domain events, seen by a subscriber as any other feature's would be:
// each change once, in the workspace it happened in, with the ids a subscriber needs.

const TYPES: EventType[] = [
  'document.created',
  'document.updated',
  'document.deleted',
  'corpus.deleted',
  'sync.finished',
  'onboarding.started',
  'onboarding.finished',
  'onboarding.failed',
  'onboarding.cancelled',
  'question.answered',
]

let t: TestApp
let b: ReadyBase
let other: ReadyBase
const seen: DomainEvent[] = []

/** Delivers what the scheduler's jobs emitted, then returns the events seen since `from`. */
async function since(from: number): Promise<DomainEvent[]> {
  await t.jobs.scheduler.drain()
  await t.events.dispatcher.drain()
  return seen.slice(from)
}

const brief = (e: DomainEvent) => `${e.type}`

beforeAll(async () => {
  t = authApp()
  t.events.dispatcher.subscribe({ name: 'test.recorder', types: TYPES, handle: (e) => void seen.push(e) })
  other = await readyBase(t, FILES.slice(0, 1), 'Another workspace')
  b = await readyBase(t, FILES)
  await since(0)
})
afterAll(() => t.close())

describe('domain events', () => {
  test('a base made ready tells each document created, the sync run, and the onboarding run', () => {
    const mine = seen.filter((e) => e.workspaceId === b.workspaceId)
    expect(mine.map(brief)).toEqual([
      ...FILES.map(() => 'document.created'),
      'sync.finished',
      'onboarding.started',
      'onboarding.finished',
    ])
    const created = mine.filter((e) => e.type === 'document.created') as DomainEvent<'document.created'>[]
    expect(created.map((e) => e.payload.documentId).sort()).toEqual(Object.values(b.docs).sort())
    expect(created.every((e) => e.payload.corpusId === b.corpusId)).toBe(true)
    const sync = mine.find((e) => e.type === 'sync.finished') as DomainEvent<'sync.finished'>
    expect(sync.payload).toMatchObject({ corpusId: b.corpusId, source: 'upload', status: 'succeeded' })
    expect(sync.payload.created).toBe(FILES.length)
    // The other workspace's events carry its own id, never this one's.
    const theirs = seen.filter((e) => e.workspaceId === other.workspaceId)
    expect(theirs.map(brief)).toEqual([
      'document.created',
      'sync.finished',
      'onboarding.started',
      'onboarding.finished',
    ])
    expect(theirs.some((e) => JSON.stringify(e.payload).includes(b.corpusId))).toBe(false)
  })

  test('new content for a path tells document.updated; the same content again tells only its sync run', async () => {
    const from = seen.length
    const [first] = FILES
    await upload(t, b.adminToken, b.corpusId, [{ ...first!, text: `${first!.text}\nOne more line.` }])
    await upload(t, b.adminToken, b.corpusId, [{ ...first!, text: `${first!.text}\nOne more line.` }])
    const events = await since(from)
    expect(events.map(brief)).toEqual(['document.updated', 'sync.finished', 'sync.finished'])
    expect((events[0] as DomainEvent<'document.updated'>).payload.documentId).toBe(b.docs[first!.path]!)
    // The unchanged upload's run ends at once; the changed one's once its document is extracted.
    const runs = (events.slice(1) as DomainEvent<'sync.finished'>[]).map((e) => e.payload)
    expect(runs.map((r) => [r.created, r.updated]).sort()).toEqual([
      [0, 0],
      [0, 1],
    ])
    await train(t, b.adminToken, b.corpusId)
  })

  test('a question answered tells its base, strategy and key', async () => {
    const from = seen.length
    for (const strategy of ['cart', 'rag']) {
      const res = await t.request(`/v1/corpora/${b.corpusId}/chat`, {
        method: 'POST',
        headers: bearer(b.keys.query),
        json: { question: 'Where does the Rhine begin?', strategy },
      })
      expect(res.status).toBe(200)
    }
    const asked = (await since(from)).filter((e) => e.type === 'question.answered')
    expect(asked.map((e) => (e as DomainEvent<'question.answered'>).payload.strategy)).toEqual([
      'cart',
      'rag',
    ])
    for (const e of asked as DomainEvent<'question.answered'>[]) {
      expect(e.workspaceId).toBe(b.workspaceId)
      expect(e.payload.corpusId).toBe(b.corpusId)
      expect(e.payload.keyId).toMatch(/^key_/)
    }
  })

  test('a refused question tells nothing', async () => {
    const from = seen.length
    const res = await t.request(`/v1/corpora/${b.corpusId}/chat`, {
      method: 'POST',
      headers: bearer(other.keys.query),
      json: { question: 'Where does the Rhine begin?' },
    })
    expect(res.status).toBe(404)
    expect(await since(from)).toEqual([])
  })

  test('deleting a document tells document.deleted; deleting the base tells corpus.deleted once', async () => {
    const from = seen.length
    const id = Object.values(b.docs)[0]!
    const del = await t.request(`/v1/corpora/${b.corpusId}/documents/${id}`, {
      method: 'DELETE',
      headers: bearer(b.adminToken),
    })
    expect(del.status).toBe(204)
    const gone = await t.request(`/v1/corpora/${b.corpusId}`, {
      method: 'DELETE',
      headers: bearer(b.adminToken),
    })
    expect(gone.status).toBe(204)
    const events = await since(from)
    expect(events.map(brief)).toEqual(['document.deleted', 'corpus.deleted'])
    // Each carries its deletion receipt (who, and what went), which the audit log writes (issue 36).
    const actor = {
      type: 'user' as const,
      id: expect.stringMatching(/^usr_/),
      ip: '127.0.0.1',
      requestId: expect.any(String),
    }
    expect(events[0]!.payload).toEqual({
      corpusId: b.corpusId,
      documentId: id,
      actor,
      receipt: { filename: expect.any(String), rows: 1, via: 'api', build_running: false },
    })
    expect(events[1]!.payload).toEqual({
      corpusId: b.corpusId,
      documents: FILES.length - 1,
      actor,
      receipt: {
        name: expect.any(String),
        rows: expect.any(Number),
        storage_bytes: expect.any(Number),
        build_running: false,
      },
    })
  })

  test('a run cancelled before its batches ran tells onboarding.cancelled', async () => {
    const [first] = FILES
    await upload(t, other.adminToken, other.corpusId, [{ ...first!, text: `${first!.text}\nChanged.` }])
    await since(0) // extracted, and its events delivered
    const from = seen.length
    const started = await t.request(`/v1/corpora/${other.corpusId}/train`, {
      method: 'POST',
      headers: bearer(other.adminToken),
    })
    expect(started.status).toBe(200)
    const run = ((await started.json()) as { id: string }).id
    const cancel = await t.request(`/v1/corpora/${other.corpusId}/cancel`, {
      method: 'POST',
      headers: bearer(other.adminToken),
    })
    expect(cancel.status).toBe(200)
    const events = await since(from)
    expect(events.map(brief)).toEqual(['onboarding.started', 'onboarding.cancelled'])
    expect(events.map((e) => (e as DomainEvent<'onboarding.cancelled'>).payload.runId)).toEqual([run, run])
  })
})
