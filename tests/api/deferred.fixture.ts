import type { TestApp } from '../helpers/app'
import { upload } from '../helpers/ready-base'
import { bearer, mintKey, signUp } from './accounts.fixture'
import { THREE_TOPICS as FILES } from './texts.fixture'

// What the tests of a base's deferred build share: reading a body, and a base with its files
// uploaded and extracted but no run yet.

/** A route's JSON body, read as the signed-in `token`. */
// biome-ignore lint/suspicious/noExplicitAny: bodies read field by field
export const getJson = async (t: TestApp, path: string, token: string): Promise<any> =>
  (await t.request(path, { headers: bearer(token) })).json()

/** A base with FILES uploaded and extracted, and a query key; no run yet. */
export async function uploadedBase(t: TestApp) {
  const admin = await signUp(t)
  const query = (await mintKey(t, admin.token, ['query'])).key
  const res = await t.request('/v1/corpora', {
    method: 'POST',
    headers: bearer(admin.token),
    json: { name: 'B' },
  })
  const corpusId = ((await res.json()) as { id: string }).id
  await upload(t, admin.token, corpusId, FILES)
  await t.jobs.scheduler.drain()
  return { admin, query, corpusId }
}
