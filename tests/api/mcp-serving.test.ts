import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { TestApp } from '../helpers/app'
import { type ReadyBase, readyBase } from '../helpers/ready-base'
import { authApp, bearer, expectError, mounts } from './accounts.fixture'
import { call, mcpClient } from './mcp.fixture'
import { TWO_SENTENCES as FILES } from './texts.fixture'

describe('a saturated engine', () => {
  let t: TestApp
  let b: ReadyBase
  beforeAll(async () => {
    t = authApp({ env: { ENGRAM_MAX_CONCURRENT_QUERIES: '1', ENGRAM_MAX_QUEUED_QUERIES: '0' } })
    b = await readyBase(t, FILES)
  })
  afterAll(() => t.close())

  test('the MCP query route and the query tool answer 503 with a retry delay, then recover', async () => {
    // The requests reach the app in-process; the MCP client speaks the real protocol to it.
    const client = await mcpClient('http://engram.test/mcp-http/', b.keys.query, (input, init) =>
      t.handle(new Request(input, init)),
    )
    const held = await t.request(`/v1/corpora/${b.corpusId}/chat/stream`, {
      method: 'POST',
      headers: bearer(b.keys.query),
      json: { question: 'Where does the Rhine begin?' },
    })
    expect(held.status).toBe(200)
    // The open stream holds the only slot.
    for (const path of mounts(`/mcp/${b.corpusId}/query`)) {
      const res = await t.request(path, {
        method: 'POST',
        headers: bearer(b.keys.query),
        json: { question: 'When did the oil crisis begin?' },
      })
      expect(res.headers.get('retry-after')).toBe('1')
      await expectError(res, path, 503, 'serving_unavailable', 'The answer engine is saturated.')
    }
    const refused = await call(client, 'query_base', { base_id: b.corpusId, question: 'When did it begin?' })
    expect(refused.result.isError).toBe(true)
    expect(refused.text).toBe('The answer engine is saturated. Retry in 1 s. (serving_unavailable)')
    // Listing needs no serving slot.
    expect((await call(client, 'list_documents', { base_id: b.corpusId })).result.isError).toBeUndefined()
    await held.text()
    const ok = await call(client, 'query_base', {
      base_id: b.corpusId,
      question: 'When did the oil crisis begin?',
    })
    expect(ok.result.isError).toBeUndefined()
    await client.close()
  })
})
