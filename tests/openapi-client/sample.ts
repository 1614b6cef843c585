// A client program written against the types that openapi-typescript generates from /openapi.json
// (tests/api/openapi.test.ts writes them to `engram-api.d.ts` beside a copy of this file and runs
// tsc). It is excluded from the project's own tsc run: the generated file exists only there.
import createClient from 'openapi-fetch'
import type { components, paths } from './engram-api'

type CorpusResp = components['schemas']['CorpusResp']
type ChatResp = components['schemas']['ChatResp']
type ErrorEnvelope = components['schemas']['ErrorEnvelope']
type RetryDetails = components['schemas']['ServingUnavailableDetail']

const api = createClient<paths>({ baseUrl: 'http://127.0.0.1:8000' })

/** Creates a base, lists the bases page by page, asks a question and reads a 503's delay. */
export async function sample(token: string): Promise<string> {
  const headers = { Authorization: `Bearer ${token}` }
  const created = await api.POST('/v1/corpora', { headers, body: { name: 'Handbook' } })
  if (created.error) return (created.error as ErrorEnvelope).error.code
  const corpus: CorpusResp = created.data
  const page = await api.GET('/v1/corpora', { headers, params: { query: { limit: 10 } } })
  const ids: string[] = page.data?.items.map((c) => c.id) ?? []
  const next: string | null = page.data?.next_cursor ?? null

  const chat = await api.POST('/v1/corpora/{corpus_id}/chat', {
    headers,
    params: { path: { corpus_id: corpus.id } },
    body: { question: 'What is the leave policy?', k: 3, strategy: 'cart' },
  })
  if (chat.response.status === 503 && chat.error && chat.error.error.code === 'serving_unavailable') {
    const details = chat.error.error.details as RetryDetails
    return `retry in ${details.retry_after_seconds}s (${chat.response.headers.get('retry-after')})`
  }
  const answer: ChatResp | undefined = chat.data
  const first: string | undefined = answer?.sources[0]?.filename

  const key = await api.POST('/v1/api-keys', {
    headers,
    body: { name: 'ci', scopes: ['ingest', 'query'], expires_at: null },
  })
  const secret: string | undefined = key.data?.key

  const me = await api.GET('/v1/auth/me', { headers })
  const role: 'admin' | 'member' | undefined = me.data?.role

  // A frozen route answers the bare list and FastAPI's validation error body.
  const frozen = await api.GET('/corpora', { headers })
  const count: number = frozen.data?.length ?? 0

  await api.POST('/v1/corpora', {
    headers,
    // @ts-expect-error `name` is a string: the generated types refuse a number.
    body: { name: 42 },
  })
  await api.POST('/v1/corpora/{corpus_id}/chat', {
    headers,
    params: { path: { corpus_id: corpus.id } },
    // @ts-expect-error `strategy` is `cart` or `rag`.
    body: { question: 'Why?', strategy: 'bm25' },
  })
  // @ts-expect-error no such route.
  await api.GET('/v1/nothing-here', {})

  return [ids.length, next, first, secret, role, count].join(' ')
}
