import { expect } from 'bun:test'
import { readFileSync } from 'node:fs'
import { basename, resolve } from 'node:path'
import type { TestApp, TestAppOptions } from '../helpers/app'
import { FIXTURE_DOCS } from '../helpers/fixture-data'
import { authApp, bearer, mintKey, signUp } from './accounts.fixture'

/**
 * Helpers of the ingest and corpora tests: a workspace with a base, multipart bodies built byte by
 * byte (so odd file names reach the server exactly as written), and looks into the object store and
 * the database to show what a request left behind.
 */

/** Bytes of a real-world test document by its path under tests/fixtures/data/docs/ ("pdf/x.pdf"). */
export function docBytes(path: string): Uint8Array {
  return new Uint8Array(readFileSync(resolve(FIXTURE_DOCS, path)))
}

/** One file of a multipart body. */
export interface Part {
  filename: string
  content: Uint8Array | string
  type?: string
  field?: string
  /** Send the name as RFC 5987 `filename*=UTF-8''...` (percent-encoded), as some clients do. */
  encoded?: boolean
}

const enc = new TextEncoder()
const BOUNDARY = 'engram-test-boundary-7MA4YWxkTrZu0gW'

/** A multipart/form-data request init with the given files (filenames written verbatim). */
export function multipart(parts: Part[], headers: Record<string, string> = {}): RequestInit {
  const chunks: Uint8Array[] = []
  for (const p of parts) {
    chunks.push(
      enc.encode(
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${p.field ?? 'files'}"; ` +
          (p.encoded ? `filename*=UTF-8''${encodeURIComponent(p.filename)}` : `filename="${p.filename}"`) +
          '\r\n' +
          `Content-Type: ${p.type ?? 'application/octet-stream'}\r\n\r\n`,
      ),
    )
    chunks.push(typeof p.content === 'string' ? enc.encode(p.content) : p.content)
    chunks.push(enc.encode('\r\n'))
  }
  chunks.push(enc.encode(`--${BOUNDARY}--\r\n`))
  return {
    method: 'POST',
    headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, ...headers },
    body: new Uint8Array(Buffer.concat(chunks)),
  }
}

/** The same body as a stream with no declared length (so limits must be enforced while reading). */
export function streamed(init: RequestInit): RequestInit {
  const bytes = init.body as Uint8Array
  let at = 0
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      if (at >= bytes.byteLength) return c.close()
      c.enqueue(bytes.slice(at, at + 16 * 1024))
      at += 16 * 1024
    },
  })
  return { ...init, body }
}

/** A real-world test document as a multipart part named by its file name. */
export function docPart(path: string, as?: string): Part {
  return { filename: as ?? basename(path), content: docBytes(path) }
}

/** A workspace (admin session), an ingest key, a query-only key and one base. */
export async function ingestSetup(opts: TestAppOptions = {}) {
  const t = authApp(opts)
  const admin = await signUp(t)
  const ingestKey = (await mintKey(t, admin.token, ['ingest'])).key
  const queryKey = (await mintKey(t, admin.token, ['query'])).key
  const base = await createBase(t, admin.token)
  return { t, admin, token: admin.token, ingestKey, queryKey, base }
}

/** Creates a base and returns its id. */
export async function createBase(t: TestApp, token: string, name = 'Drive'): Promise<string> {
  const res = await t.request('/v1/corpora', { method: 'POST', headers: bearer(token), json: { name } })
  expect(res.status).toBe(200)
  return ((await res.json()) as { id: string }).id
}

/** Uploads parts to a base and returns the response. */
export function upload(t: TestApp, token: string, corpusId: string, parts: Part[], prefix = '/v1') {
  return t.request(`${prefix}/corpora/${corpusId}/documents`, {
    ...multipart(parts),
    headers: { ...bearer(token), 'content-type': multipartType() },
  })
}

/** The content type of bodies built by `multipart`. */
export function multipartType(): string {
  return `multipart/form-data; boundary=${BOUNDARY}`
}

/** Every object key in the store. */
export async function objectKeys(t: TestApp, prefix = ''): Promise<string[]> {
  const out: string[] = []
  for await (const o of t.deps.objects.list(prefix)) out.push(o.key)
  return out.sort()
}

/** Rows of a table matching a condition. */
/** Rows of `table` matching `where`, on whichever engine the test app runs (t.sql: SQLite, or PostgreSQL). */
export async function countRows(
  t: TestApp,
  table: string,
  where = '1 = 1',
  ...args: string[]
): Promise<number> {
  return Number(
    (await t.sql.get<{ n: number }>(`SELECT count(*) AS n FROM ${table} WHERE ${where}`, ...args))?.n ?? 0,
  )
}

/** What a base holds in the database and the store, to show a refused request changed nothing. */
export async function footprint(t: TestApp) {
  return {
    documents: await countRows(t, 'documents'),
    sync_runs: await countRows(t, 'sync_runs'),
    jobs: await countRows(t, 'jobs'),
    uploads: await countRows(t, 'ingest_uploads'),
    objects: await objectKeys(t),
  }
}

/** Runs every due background job to completion. */
export function drain(t: TestApp): Promise<void> {
  return t.jobs.scheduler.drain()
}

/** Hex SHA-256. */
export function sha256(data: Uint8Array | string): string {
  return new Bun.CryptoHasher('sha256').update(data).digest('hex')
}

/** A document as the API returns it. */
export interface Doc {
  id: string
  corpus_id: string
  filename: string
  size: number
  content_type: string | null
  sha256: string | null
  status: string
  error: string | null
  section_count: number
  parent_id: string | null
  cart_id: string | null
  title: string | null
  source: string
}

/** Lists the documents of a base (frozen mount: the whole array). */
export async function listDocs(
  t: TestApp,
  token: string,
  corpusId: string,
  sections = false,
): Promise<Doc[]> {
  const res = await t.request(`/corpora/${corpusId}/documents${sections ? '?sections=true' : ''}`, {
    headers: bearer(token),
  })
  expect(res.status).toBe(200)
  return (await res.json()) as Doc[]
}

/** A Markdown document long enough to be split into `n` sections at its headings. */
export function longMarkdown(n: number, tag = 'Chapter'): string {
  const para = (i: number) =>
    `${tag} ${i} explains one topic at length. `.repeat(60) +
    `The key number of ${tag.toLowerCase()} ${i} is ${i * 7}.`
  return Array.from({ length: n }, (_, i) => `# ${tag} ${i + 1}\n\n${para(i + 1)}\n\n${para(i + 1)}`).join(
    '\n\n',
  )
}
