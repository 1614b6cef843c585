import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { TestApp } from '../helpers/app'
import { type ReadyBase, readyBase } from '../helpers/ready-base'
import { authApp, bearer, mintKey } from './accounts.fixture'
import { THREE_TOPICS } from './texts.fixture'

// A question's own commits (its allowance and its `question.answered`) keep the key, allowlist and
// base memos (commit-watch.ts, `quietly`); every other change still reaches the very next request:
// a revocation through the API, a revocation by another connection, an allowlist saved.

let t: TestApp
let b: ReadyBase

beforeAll(async () => {
  t = authApp()
  b = await readyBase(t, THREE_TOPICS)
})
afterAll(() => t.close())

const ask = (key: string, peer?: string) =>
  t.request(`/v1/corpora/${b.corpusId}/chat`, {
    method: 'POST',
    headers: bearer(key),
    json: { question: 'When did the oil embargo begin?', strategy: 'rag' },
    peer,
  })

describe('the memos across a question', () => {
  test("a question's own commits move nothing the memos watch; it is still counted", async () => {
    const key = (await mintKey(t, b.adminToken, ['query'])).key
    expect((await ask(key)).status).toBe(200) // the key's first use is recorded: an ordinary commit
    // What the memos watch: the app's store's commits (its own units but quiet ones, and others').
    const watch = t.store.commits
    const used = async () =>
      (await t.sql.get<{ taken: number }>('SELECT sum(taken) AS taken FROM plan_queries'))!.taken
    const [v, before] = [watch.version(), await used()]
    for (let i = 0; i < 3; i++) expect((await ask(key)).status).toBe(200)
    expect(watch.version()).toBe(v)
    expect(await used()).toBe(before + 3)
  })

  test('a key revoked through the API between questions is refused on the very next request', async () => {
    const minted = await mintKey(t, b.adminToken, ['query'])
    for (let i = 0; i < 3; i++) expect((await ask(minted.key)).status).toBe(200)
    const revoked = await t.request(`/v1/api-keys/${minted.id}`, {
      method: 'DELETE',
      headers: bearer(b.adminToken),
    })
    expect(revoked.status).toBe(200)
    const res = await ask(minted.key)
    expect(res.status).toBe(401)
    expect(((await res.json()) as { error: { message: string } }).error.message).toBe(
      'This API key has been revoked.',
    )
  })

  test('a key revoked by another process between questions is refused on the very next request', async () => {
    const minted = await mintKey(t, b.adminToken, ['query'])
    for (let i = 0; i < 3; i++) expect((await ask(minted.key)).status).toBe(200)
    await t.sql.runElsewhere(
      'UPDATE api_keys SET revoked_at = ? WHERE id = ?',
      Date.parse('2026-03-01T12:00:00Z'),
      minted.id,
    )
    expect((await ask(minted.key)).status).toBe(401)
  })

  test('an allowlist saved between questions refuses the next from an address it does not list', async () => {
    const key = (await mintKey(t, b.adminToken, ['query'])).key
    for (let i = 0; i < 3; i++) expect((await ask(key, '198.51.100.9')).status).toBe(200)
    const saved = await t.request('/v1/enterprise/ip-allowlist', {
      method: 'PUT',
      headers: bearer(b.adminToken),
      json: { enabled: true, cidrs: ['127.0.0.1'] },
      peer: '127.0.0.1',
    })
    expect(saved.status).toBe(200)
    const res = await ask(key, '198.51.100.9')
    expect(res.status).toBe(403)
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('ip_not_allowed')
    expect((await ask(key, '127.0.0.1')).status).toBe(200)
  })
})
