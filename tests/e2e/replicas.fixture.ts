// What the replica tests (replicas*.test.ts) and the replicas bench share: a client of the HTTP API
// of whichever replica it is given, and the SQuAD articles and questions of tests/fixtures/data.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { FIXTURE_SQUAD } from '../helpers/fixture-data'
import { until } from '../helpers/replicas'

export type Auth = { authorization: string }

/** A request to `url` + `path`: JSON when `json` is given, a form when `form` is. */
export function call(
  url: string,
  path: string,
  o: { auth?: Auth; method?: string; json?: unknown; form?: FormData } = {},
): Promise<Response> {
  const headers: Record<string, string> = { ...o.auth }
  if (o.json !== undefined) headers['content-type'] = 'application/json'
  return fetch(`${url}${path}`, {
    method: o.method ?? (o.json !== undefined || o.form ? 'POST' : 'GET'),
    headers,
    body: o.json !== undefined ? JSON.stringify(o.json) : o.form,
  })
}

/** The parsed body of a request that must answer `status` (200 unless told); throws with the body otherwise. */
export async function ok<T = Record<string, unknown>>(
  res: Response | Promise<Response>,
  status = 200,
): Promise<T> {
  const r = await res
  const text = await r.text()
  if (r.status !== status) throw new Error(`${r.url}: ${r.status}, not ${status}: ${text.slice(0, 500)}`)
  return (text ? JSON.parse(text) : null) as T
}

/** The squad-dev articles of the fixtures, `copies` times (copies after the first varied, as new documents). */
export function squadFiles(copies = 1): { path: string; text: string }[] {
  const dir = join(FIXTURE_SQUAD, 'articles')
  const articles = readdirSync(dir)
    .filter((f) => f.endsWith('.txt'))
    .sort()
    .map((f) => ({ path: f, text: readFileSync(join(dir, f), 'utf8') }))
  return Array.from({ length: copies }, (_, c) =>
    articles.map((a) => ({
      path: c === 0 ? a.path : `copy${c}/${a.path}`,
      // Numbers shifted and a tag at each paragraph break: another text, not a duplicate.
      text:
        c === 0
          ? a.text
          : a.text.replace(/\b(\d+)\b/g, (n) => String(Number(n) + c)).replace(/\n\n/g, ` (copy ${c}).\n\n`),
    })),
  ).flat()
}

export interface SquadQuestion {
  question: string
  /** The article's file name. */
  document: string
  answers: { text: string }[]
}

/** `n` questions of the fixtures' squad-dev (Nikola_Tesla, Oxygen, Warsaw), spread by a prime stride. */
export function squadQuestions(n: number): SquadQuestion[] {
  const all = readFileSync(join(FIXTURE_SQUAD, 'questions.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as SquadQuestion)
  return Array.from({ length: n }, (_, i) => all[(i * 7919) % all.length]!)
}

/** Creates a base through `url` and uploads `files` to it (40 a request); waits for their extraction. */
export async function baseWithFiles(
  url: string,
  auth: Auth,
  name: string,
  files: { path: string; text: string }[],
) {
  const base = await ok<{ id: string }>(call(url, '/v1/corpora', { auth, json: { name } }))
  for (let i = 0; i < files.length; i += 40) {
    const form = new FormData()
    for (const f of files.slice(i, i + 40))
      form.append('files', new File([f.text], f.path, { type: 'text/plain' }))
    await ok(call(url, `/v1/corpora/${base.id}/documents`, { auth, form }))
  }
  // An upload is a sync run that stays running until its files' extraction has settled.
  await until(
    async () => {
      const runs = await ok<{ items: { status: string }[] }>(
        call(url, `/v1/corpora/${base.id}/sync-runs?limit=500`, { auth }),
      )
      return runs.items.length > 0 && runs.items.every((r) => r.status !== 'running')
    },
    'the uploads to be extracted',
    120_000,
  )
  return base.id
}

export interface JobResp {
  id: string
  status: string
  progress: number
}

/** Starts onboarding base `id` through `url`; the run's job. */
export function train(url: string, auth: Auth, id: string): Promise<JobResp> {
  return ok<JobResp>(call(url, `/v1/corpora/${id}/train`, { auth, method: 'POST' }))
}

/** Waits (asking `url()`, which may change) until job `id` has ended; the job as it ended. */
export async function ended(url: () => string, auth: Auth, id: string, ms = 120_000): Promise<JobResp> {
  let job: JobResp | null = null
  await until(
    async () => {
      job = await ok<JobResp>(call(url(), `/v1/jobs/${id}`, { auth }))
      return !['pending', 'running'].includes(job.status)
    },
    `job ${id} to end`,
    ms,
  )
  return job!
}

export interface ChatResp {
  answer: string
  answered: boolean
  short_answer: string | null
  sources: { id: string; document_id: string; filename: string; snippet: string; score: number }[]
}

/** Asks base `id` through `url`. */
export function ask(url: string, auth: Auth, id: string, question: string, strategy: 'rag' | 'cart') {
  return ok<ChatResp>(call(url, `/v1/corpora/${id}/chat`, { auth, json: { question, strategy } }))
}

/** An API key of the workspace with `scopes`, minted through `url`. */
export async function mintKey(url: string, auth: Auth, scopes: string[]) {
  const key = await ok<{ id: string; key: string }>(
    call(url, '/v1/api-keys', { auth, json: { name: `key-${scopes.join('-')}`, scopes } }),
  )
  return { id: key.id, auth: { authorization: `Bearer ${key.key}` } }
}
