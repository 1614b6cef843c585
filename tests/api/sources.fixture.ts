import { expect } from 'bun:test'
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import type { TestApp } from '../helpers/app'
import { bearer } from './accounts.fixture'

/** Helpers of the sources tests: folders on disk, connections, sources and syncs through the API. */

/** A directory with files (path -> text), its real path (symlinks in the temp dir resolved). */
export function folderOf(
  files: Record<string, string>,
  root = mkdtempSync(join(tmpdir(), 'engram-src-')),
): string {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), text)
  }
  return realpathSync(root)
}

/** POSTs JSON with a token and returns the status and body. */
export async function call<T = Record<string, unknown>>(
  t: TestApp,
  token: string,
  method: string,
  path: string,
  json?: unknown,
): Promise<{ status: number; body: T }> {
  const res = await t.request(path, {
    method,
    headers: bearer(token),
    ...(json === undefined ? {} : { json }),
  })
  const text = await res.text()
  return { status: res.status, body: (text ? JSON.parse(text) : null) as T }
}

/** Creates a connection; expects 201. */
export async function connection(t: TestApp, token: string, body: Record<string, unknown>): Promise<string> {
  const out = await call<{ id: string }>(t, token, 'POST', '/v1/connections', body)
  expect(out.status).toBe(201)
  return out.body.id
}

/** Creates a source of a base; expects 201. */
export async function source(
  t: TestApp,
  token: string,
  corpusId: string,
  body: Record<string, unknown>,
): Promise<string> {
  const out = await call<{ id: string }>(t, token, 'POST', `/v1/corpora/${corpusId}/sources`, body)
  expect(out).toMatchObject({ status: 201 })
  return out.body.id
}

export interface RunBody {
  id: string
  status: string
  created: number
  updated: number
  unchanged: number
  deleted: number
  failed: number
  pending: number
  errors: { path: string; error: string }[]
  error: string | null
  source_id: string | null
  job_id: string | null
}

/** Syncs a source now and lets the queue finish; returns the run as it ended. */
export async function syncNow(
  t: TestApp,
  token: string,
  corpusId: string,
  sourceId: string,
): Promise<RunBody> {
  const started = await call<RunBody>(t, token, 'POST', `/v1/corpora/${corpusId}/sources/${sourceId}/sync`)
  expect(started.status).toBe(202)
  await t.jobs.scheduler.drain()
  const run = await call<RunBody>(t, token, 'GET', `/v1/corpora/${corpusId}/sync-runs/${started.body.id}`)
  return run.body
}

/** The base's parent documents' paths, sorted. */
export async function paths(t: TestApp, token: string, corpusId: string): Promise<string[]> {
  const docs = await call<{ filename: string }[]>(t, token, 'GET', `/corpora/${corpusId}/documents`)
  return docs.body.map((d) => d.filename).sort()
}
