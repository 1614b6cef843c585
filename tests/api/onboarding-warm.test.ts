import { afterEach, describe, expect, test } from 'bun:test'
import type { TestApp } from '../helpers/app'
import { upload } from '../helpers/ready-base'
import { authApp, bearer, signUp } from './accounts.fixture'
import { THREE_TOPICS as FILES } from './texts.fixture'

// Issue 38: a base's upload readies the engine (its compile thread started) as the upload begins, so
// the run that follows finds the thread ready to chunk its first groups instead of chunking them on
// the event loop while the thread starts. The tables questions read follow the run (Engine.warmBase).

let t: TestApp
afterEach(() => t.close())

describe('an upload', () => {
  test("readies the engine for the run as it begins, for the workspace's own bases only", async () => {
    t = authApp()
    const engine = t.services.engine
    const warmUp = engine.warmUp.bind(engine)
    let warmed = 0
    engine.warmUp = () => {
      warmed++
      warmUp()
    }
    const admin = await signUp(t)
    const other = await signUp(t)
    const base = async (token: string) => {
      const res = await t.request('/v1/corpora', {
        method: 'POST',
        headers: bearer(token),
        json: { name: 'B' },
      })
      return ((await res.json()) as { id: string }).id
    }
    const corpusId = await base(admin.token)
    await base(other.token)
    expect(warmed).toBe(0)
    // Another workspace's base: a 404, and nothing readied.
    const form = new FormData()
    form.append('files', new File([FILES[0]!.text], FILES[0]!.path, { type: 'text/plain' }))
    const refused = await t.request(`/v1/corpora/${corpusId}/documents`, {
      method: 'POST',
      headers: bearer(other.token),
      body: form,
    })
    expect(refused.status).toBe(404)
    expect(warmed).toBe(0)
    await upload(t, admin.token, corpusId, FILES)
    expect(warmed).toBe(1)
  })
})
