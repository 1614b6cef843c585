/**
 * A ready document base on a running server, made through the public API with fetch the way a
 * user's client would: register a workspace, create a base, upload real fixture files, onboard it
 * and follow the job until it ends. For browser tests that need something to ask.
 */
import { readFileSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'

const DOCS = resolve(import.meta.dir, '../fixtures/data/docs')

/** What `readyBaseOn` made: the admin's session and the ready base. */
export interface ConsoleBase {
  token: string
  expiresAt: string
  corpusId: string
  authorization: string
}

/** A fixture document by its path under tests/fixtures/data/docs (e.g. `md/deepset-ai_haystack__sample.md`). */
export function fixtureFile(path: string, type: string): File {
  return new File([readFileSync(join(DOCS, path))], basename(path), { type })
}

async function call<T>(url: string, init: RequestInit & { auth?: string } = {}): Promise<T> {
  const headers = new Headers(init.headers)
  if (init.auth) headers.set('authorization', init.auth)
  const res = await fetch(url, { ...init, headers })
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${await res.text()}`)
  return (await res.json()) as T
}

/**
 * Registers a workspace on the server at `url`, creates a base named `name`, uploads `files` and
 * onboards them; resolves once the onboarding job has succeeded (each poll awaits the answer
 * before the next; the job's own deadline bounds the loop).
 */
export async function readyBaseOn(
  url: string,
  files: File[],
  opts: { email?: string; name?: string } = {},
): Promise<ConsoleBase> {
  const session = await call<{ access_token: string; expires_at: string }>(`${url}/v1/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      workspace_name: 'Acme Research',
      name: 'Ada Admin',
      email: opts.email ?? 'ada@example.com',
      password: 'correct horse battery',
    }),
  })
  const auth = `Bearer ${session.access_token}`
  const json = { 'content-type': 'application/json' }
  const base = await call<{ id: string }>(`${url}/v1/corpora`, {
    method: 'POST',
    headers: json,
    auth,
    body: JSON.stringify({ name: opts.name ?? 'Haystack notes' }),
  })
  const form = new FormData()
  for (const f of files) form.append('files', f)
  await call(`${url}/v1/corpora/${base.id}/documents`, { method: 'POST', auth, body: form })
  const job = await call<{ id: string }>(`${url}/v1/corpora/${base.id}/train`, { method: 'POST', auth })
  const deadline = Date.now() + 110_000
  for (;;) {
    const j = await call<{ status: string; error: string | null }>(`${url}/v1/jobs/${job.id}`, { auth })
    if (j.status === 'succeeded') break
    if (j.status === 'failed' || j.status === 'canceled')
      throw new Error(`onboarding ${j.status}: ${j.error}`)
    if (Date.now() > deadline) throw new Error(`onboarding still ${j.status} after 110 s`)
    // A short poll interval: the job's progress is only known by asking.
    await Bun.sleep(200)
  }
  return {
    token: session.access_token,
    expiresAt: session.expires_at,
    corpusId: base.id,
    authorization: auth,
  }
}
