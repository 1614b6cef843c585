import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { TestApp } from '../helpers/app'
import { bearer } from './accounts.fixture'
import { countRows, createBase, footprint, ingestSetup, sha256 } from './ingest.fixture'

// Issue 32, item 7: `POST .../upload-urls` with 100,000 entries (11 MB) held `GET /` for 3.5 s.
// A manifest is bounded (files: 422 too_many_files; bytes: 413 payload_too_large, refused before
// the body is read whole), and its work yields to the event loop between slices.

const LIMIT = 1000
const ROUTES = ['diff', 'upload-urls', 'commit'] as const

let f: Awaited<ReturnType<typeof ingestSetup>>
beforeAll(async () => {
  // Local storage whichever pass runs: a manifest's content goes up through the raw route, which is
  // the local store's (on S3 the plan is presigned URLs, tests/api/ingest-s3.test.ts).
  f = await ingestSetup({ env: { ENGRAM_INGEST_MAX_MANIFEST_FILES: String(LIMIT), ENGRAM_STORAGE: 'local' } })
})
afterAll(() => f.t.close())

const CONTENT = 'One small file, shared by every path of the manifests below.'

/** `n` entries with distinct paths; all share CONTENT unless `distinct`. */
function manifest(n: number, distinct = false) {
  return Array.from({ length: n }, (_, i) => {
    const text = distinct ? `${CONTENT} ${i}` : CONTENT
    return { path: `folder-${i % 7}/file-${i}.txt`, sha256: sha256(text), size: Buffer.byteLength(text) }
  })
}

function post(t: TestApp, base: string, route: string, body: string | ReadableStream<Uint8Array>) {
  return t.request(`/v1/corpora/${base}/documents/${route}`, {
    method: 'POST',
    headers: { ...bearer(f.token), 'content-type': 'application/json' },
    body,
  })
}

/** The whole error body of a `/v1` refusal. */
async function errorOf(res: Response) {
  return { status: res.status, body: (await res.json()) as { error: Record<string, unknown> } }
}

describe('manifest limits', () => {
  test('more files than ingest.max_manifest_files is a 422 too_many_files naming the limit; nothing is written', async () => {
    const base = await createBase(f.t, f.token)
    const before = await footprint(f.t)
    const body = JSON.stringify({ files: manifest(LIMIT + 1) })
    for (const route of ROUTES) {
      const res = await post(f.t, base, route, body)
      expect(await errorOf(res)).toEqual({
        status: 422,
        body: {
          error: {
            code: 'too_many_files',
            status: 422,
            message: `The manifest lists ${LIMIT + 1} files; one request may list ${LIMIT} at most (setting ingest.max_manifest_files). Push the folder in parts, as sub-folders (engram push --prefix).`,
            details: { limit: LIMIT, files: LIMIT + 1 },
            request_id: res.headers.get('x-request-id'),
          },
        },
      })
    }
    expect(await footprint(f.t)).toEqual(before)
  })

  test('a body over ingest.max_json_bytes (16 MiB by default) is a 413 with the limit; nothing is written', async () => {
    const base = await createBase(f.t, f.token)
    const before = await footprint(f.t)
    // Valid JSON: one entry, then blanks up to just past the default limit.
    const body = `{"files": ${JSON.stringify(manifest(1))}${' '.repeat(16 * 1024 * 1024)}}`
    for (const route of ROUTES) {
      const res = await post(f.t, base, route, body)
      expect(await errorOf(res)).toEqual({
        status: 413,
        body: {
          error: {
            code: 'payload_too_large',
            status: 413,
            message: 'The request body exceeds the limit of 16777216 bytes.',
            details: { limit: 16_777_216 },
            request_id: res.headers.get('x-request-id'),
          },
        },
      })
    }
    expect(await footprint(f.t)).toEqual(before)
  })

  test('a body sent without a length is read only up to the limit, then refused: memory stays bounded', async () => {
    const base = await createBase(f.t, f.token)
    const chunk = new TextEncoder().encode(' '.repeat(64 * 1024))
    let pulled = 0
    let canceled = false
    // Endless: a reader that kept going would never finish.
    const endless = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode('{"files": ['))
      },
      pull(c) {
        pulled += chunk.byteLength
        c.enqueue(chunk)
      },
      cancel() {
        canceled = true
      },
    })
    const res = await post(f.t, base, 'upload-urls', endless)
    expect(res.status).toBe(413)
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('payload_too_large')
    expect(canceled).toBe(true)
    // The limit, plus at most the chunks a stream buffers ahead of its reader.
    expect(pulled).toBeLessThanOrEqual(16 * 1024 * 1024 + 4 * chunk.byteLength)
    expect(await countRows(f.t, 'ingest_uploads')).toBe(0)
  })

  test('a manifest at the limit works: diff, upload-urls and a commit of all its files', async () => {
    const base = await createBase(f.t, f.token)
    const files = manifest(LIMIT)
    const body = JSON.stringify({ files })
    const diff = (await (await post(f.t, base, 'diff', body)).json()) as { new: string[] }
    expect(diff.new).toHaveLength(LIMIT)
    const urls = (await (await post(f.t, base, 'upload-urls', body)).json()) as {
      uploads: { path: string; upload: boolean; url: string }[]
    }
    expect(urls.uploads.map((u) => u.path)).toEqual(files.map((x) => x.path))
    // Through the raw route each path gets its URL; one PUT of the shared content serves them all.
    expect(urls.uploads.filter((u) => u.upload)).toHaveLength(LIMIT)
    const put = await f.t.request(urls.uploads[0]!.url, {
      method: 'PUT',
      headers: { ...bearer(f.token), 'content-type': 'application/octet-stream' },
      body: CONTENT,
    })
    expect(put.status).toBe(200)
    const res = await post(f.t, base, 'commit', body)
    expect(res.status).toBe(202)
    const run = (await res.json()) as Record<string, unknown>
    expect(run).toMatchObject({
      source: 'push',
      status: 'running',
      created: LIMIT,
      pending: LIMIT,
      error: null,
    })
    expect(await countRows(f.t, 'documents', 'corpus_id = ?', base)).toBe(LIMIT)
    // Registered in batches into one run, closed after the last.
    expect(await countRows(f.t, 'sync_runs', 'corpus_id = ? AND listing = 1', base)).toBe(0)
    expect(await countRows(f.t, 'sync_runs', 'corpus_id = ?', base)).toBe(1)
  }, 60_000)
})

describe('manifest work yields to the event loop', () => {
  test('a GET / sent while a manifest at the limit is worked through is answered before it ends', async () => {
    for (const route of ROUTES) {
      const base = await createBase(f.t, f.token)
      if (route === 'commit') {
        // The commit needs the content: one file, shared by every path.
        const res = await f.t.request(
          `/v1/corpora/${base}/documents/raw?${new URLSearchParams({ path: 'seed.txt', sha256: sha256(CONTENT) })}`,
          { method: 'PUT', headers: bearer(f.token), body: CONTENT },
        )
        expect(res.status).toBe(200)
      }
      let finished = false
      let turns = 0
      const tick = () => {
        if (finished) return
        turns++
        setImmediate(tick)
      }
      const working = post(
        f.t,
        base,
        route,
        JSON.stringify({ files: manifest(LIMIT, route !== 'commit') }),
      ).then((res) => {
        finished = true
        return res
      })
      // Sent on the loop's next turn: answered then only if the manifest lets the loop turn.
      const root = await new Promise<{ status: number; manifestDone: boolean }>((resolve) =>
        setImmediate(async () => {
          const res = await f.t.request('/')
          resolve({ status: res.status, manifestDone: finished })
        }),
      )
      setImmediate(tick)
      const res = await working
      expect([route, res.status]).toEqual([route, route === 'commit' ? 202 : 200])
      expect([route, root]).toEqual([route, { status: 200, manifestDone: false }])
      // The loop turned between slices of 250 entries (and batches of 100 registrations).
      expect([route, turns >= 2]).toEqual([route, true])
    }
  }, 60_000)
})

describe('a commit registered in batches', () => {
  test('a push run a stop left open is ended failed by the start-up sweep; one being registered is spared', async () => {
    const base = await createBase(f.t, f.token)
    const now = f.t.clock.now().getTime()
    await f.t.sql.run(
      `INSERT INTO sync_runs (id, workspace_id, corpus_id, source, status, listing, created, pending, started_at)
       VALUES ('run_cut_short', ?, ?, 'push', 'running', 1, 100, 100, ?)`,
      f.admin.workspaceId,
      base,
      now,
    )
    const seed = await f.t.request(
      `/v1/corpora/${base}/documents/raw?${new URLSearchParams({ path: 'seed.txt', sha256: sha256(CONTENT) })}`,
      { method: 'PUT', headers: bearer(f.token), body: CONTENT },
    )
    expect(seed.status).toBe(200)
    const open = () =>
      f.t.sql.all<{ id: string }>(
        "SELECT id FROM sync_runs WHERE corpus_id = ? AND listing = 1 AND id != 'run_cut_short'",
        base,
      )
    let finished = false
    let sweeping: Promise<unknown> | null = null
    const seen: { id: string; status: string; leased: boolean }[] = []
    // On a turn of the loop while the commit is registered, the sweep runs as at a start-up (its
    // listing of objects goes on meanwhile); once it is done, the run being registered is still running.
    const tick = async () => {
      if (finished) return
      const live = (await open())[0]
      if (live && sweeping === null) {
        // Spared because this process registers it: it holds the commit's lease meanwhile (read as
        // the sweep starts: a loaded machine may finish the commit, and let its lease go, first).
        const lease = await f.t.sql.get<{ name: string }>(
          'SELECT name FROM named_leases WHERE name = ?',
          `ingest.push-commit:${live.id}`,
        )
        sweeping = f.t.services.ingest.sweepOrphans().then(async () => {
          const row = await f.t.sql.get<{ status: string }>(
            'SELECT status FROM sync_runs WHERE id = ?',
            live.id,
          )
          seen.push({ id: live.id, status: row!.status, leased: lease !== null && lease !== undefined })
        })
      }
      setImmediate(tick)
    }
    setImmediate(tick)
    const res = await post(f.t, base, 'commit', JSON.stringify({ files: manifest(LIMIT) }))
    finished = true
    await sweeping
    expect(res.status).toBe(202)
    const run = (await res.json()) as { id: string; status: string; created: number }
    expect(seen).toEqual([{ id: run.id, status: 'running', leased: true }])
    // The commit gave its lease up as it ended; the sweep gave its own up, and the cut-short run's.
    expect(await f.t.sql.all('SELECT name FROM named_leases')).toEqual([])
    expect(run).toMatchObject({ status: 'running', created: LIMIT })
    const cut = await f.t.sql.get<{ status: string; listing: number; error: string; finished_at: number }>(
      "SELECT status, listing, error, finished_at FROM sync_runs WHERE id = 'run_cut_short'",
    )
    expect(cut).toEqual({
      status: 'failed',
      listing: 0,
      error:
        'The server stopped while this commit was being registered; the files registered before are kept. Push again to finish.',
      finished_at: now,
    })
  }, 60_000)
})
