import { expect } from 'bun:test'
import { bearer, mintKey, signUp } from '../api/accounts.fixture'
import type { TestApp } from './app'

/** A file to put in a base. */
export interface FixtureFile {
  path: string
  text: string
  type?: string
}

/** What `readyBase` made. */
export interface ReadyBase {
  corpusId: string
  workspaceId: string
  adminToken: string
  keys: { query: string; ingest: string; admin: string }
  /** Parent document ids by path. */
  docs: Record<string, string>
}

/** Uploads files into a base of the workspace (multipart `files`) and returns the documents. */
export async function upload(t: TestApp, token: string, corpusId: string, files: FixtureFile[]) {
  const form = new FormData()
  for (const f of files) form.append('files', new File([f.text], f.path, { type: f.type ?? 'text/plain' }))
  const res = await t.request(`/v1/corpora/${corpusId}/documents`, {
    method: 'POST',
    headers: bearer(token),
    body: form,
  })
  expect(res.status).toBe(200)
  return (await res.json()) as { id: string; filename: string }[]
}

/** Starts an onboarding run and lets the scheduler finish it. */
export async function train(t: TestApp, token: string, corpusId: string, force = false) {
  await t.jobs.scheduler.drain()
  const res = await t.request(`/v1/corpora/${corpusId}/train${force ? '?force=true' : ''}`, {
    method: 'POST',
    headers: bearer(token),
  })
  expect(res.status).toBe(200)
  const run = (await res.json()) as { id: string }
  await t.jobs.scheduler.drain()
  return run
}

/** A new base named `name` in the session's workspace (POST /v1/corpora, 200); its id. */
export async function createCorpus(t: TestApp, token: string, name: string): Promise<string> {
  const created = await t.request('/v1/corpora', { method: 'POST', headers: bearer(token), json: { name } })
  expect(created.status).toBe(200)
  return ((await created.json()) as { id: string }).id
}

/**
 * A workspace with an admin session, keys of each scope, and a base holding `files`, uploaded,
 * extracted and onboarded: ready for questions.
 */
export async function readyBase(t: TestApp, files: FixtureFile[], name = 'Fixture base'): Promise<ReadyBase> {
  const admin = await signUp(t)
  const keys = {
    query: (await mintKey(t, admin.token, ['query'])).key,
    ingest: (await mintKey(t, admin.token, ['ingest'])).key,
    admin: (await mintKey(t, admin.token, ['admin', 'ingest', 'query'])).key,
  }
  const corpusId = await createCorpus(t, admin.token, name)
  const uploaded = await upload(t, admin.token, corpusId, files)
  await train(t, admin.token, corpusId)
  const base = (await (
    await t.request(`/v1/corpora/${corpusId}`, { headers: bearer(admin.token) })
  ).json()) as {
    status: string
  }
  expect(base.status).toBe('ready')
  return {
    corpusId,
    workspaceId: admin.workspaceId,
    adminToken: admin.token,
    keys,
    docs: Object.fromEntries(uploaded.map((d) => [d.filename, d.id])),
  }
}
