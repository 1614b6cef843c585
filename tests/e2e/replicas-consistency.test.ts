import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { signUpOn } from '../helpers/binary'
import { testPostgres } from '../helpers/postgres'
import { type Replicas, startReplicas, until } from '../helpers/replicas'
import {
  type Auth,
  ask,
  baseWithFiles,
  type ChatResp,
  call,
  ended,
  mintKey,
  ok,
  squadFiles,
  squadQuestions,
  train,
} from './replicas.fixture'

// Issue 40 (docs/scale-out.md, "Test plan"): what the request's auth read and the one shared index
// (ENGRAM_SHARED_INDEX, on in the harness) promise, on three real replicas on one PostgreSQL and one
// bucket (tests/helpers/replicas.ts). A key revoked through A is refused by C on the very next request,
// also with every listening connection terminated first (200 rounds each), and so are a session ended
// by a password change and a suspended workspace; every replica gives the same answer and sources for
// a base whose run's batches ran on whichever replica claimed them; a document deleted through B is
// never cited by A or C afterwards, at once and again.

const pg = await testPostgres()
const A = 0
const B = 1
const C = 2
const ROUNDS = 200
const EMAIL = 'consistency@example.com'
const QUESTIONS = 20

/** What must be the same on every replica: the answer and its sources (their passages and places). */
function shown(r: ChatResp) {
  return {
    answer: r.answer,
    short_answer: r.short_answer,
    answered: r.answered,
    sources: r.sources.map((s) => [s.id, s.document_id, s.filename, s.snippet, s.score]),
  }
}

describe.skipIf(!pg.available)('three replicas: the next request, the same answers everywhere', () => {
  let set: Replicas
  let admin: Auth
  let base = ''
  beforeAll(async () => {
    if (!pg.available) return
    // C answers requests only (ENGRAM_JOBS=false): A and B run the jobs and deliver the events.
    set = await startReplicas(pg, {
      env: { ENGRAM_RATE_LIMITS: 'off' },
      envOf: (i): Record<string, string> => (i === C ? { ENGRAM_JOBS: 'false' } : {}),
    })
    admin = await signUpOn(set.url(A), EMAIL, 'Consistency')
    // Onboarded through A: its batches run wherever they are claimed, on A or B.
    base = await baseWithFiles(set.url(A), admin, 'Squad', squadFiles(2))
    const run = await train(set.url(A), admin, base)
    expect(await ended(() => set.url(A), admin, run.id)).toMatchObject({ status: 'succeeded' })
    await until(
      async () =>
        (await ok(call(set.url(A), `/v1/corpora/${base}`, { auth: admin }))).cart_status === 'ready',
      'the cartridges to be built',
      60_000,
    )
  }, 180_000)
  afterAll(async () => {
    await set?.stop()
  }, 60_000)

  /** Revokes a fresh key through A after C has used it, then asks C at once, `ROUNDS` times. */
  async function revocationRounds(beforeRevoking: () => Promise<void>) {
    for (let round = 0; round < ROUNDS; round++) {
      const key = await mintKey(set.url(A), admin, ['query', 'ingest'])
      // C holds the key's row now (its memo).
      expect((await call(set.url(C), '/v1/corpora', { auth: key.auth })).status).toBe(200)
      await beforeRevoking()
      await ok(call(set.url(A), `/v1/api-keys/${key.id}`, { auth: admin, method: 'DELETE' }))
      const res = await call(set.url(C), '/v1/corpora', { auth: key.auth })
      await res.arrayBuffer()
      if (res.status !== 401) throw new Error(`round ${round}: C answered ${res.status} to a revoked key`)
    }
  }

  test('a replica started with ENGRAM_JOBS=false answers but runs no jobs: it never registered as a runner', async () => {
    const listening = set
      .replica(C)
      .lines()
      .find((l) => l.msg === 'listening')!
    expect(listening.jobs).toBe(false)
    // Three replicas serve; two run jobs and events, and register as runners (replicas.repo.ts).
    const runners = (await set.sql`SELECT owner FROM replicas`) as { owner: string }[]
    expect(runners).toHaveLength(2)
  })

  test('a key revoked through A is refused by C on the very next request (200 rounds)', async () => {
    await revocationRounds(async () => {})
  }, 120_000)

  test("the same with C's listening connection terminated before each revocation", async () => {
    await revocationRounds(async () => {
      // Every replica's LISTEN connection (C's among them) ends: no notification can reach it.
      await set.sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid() AND query ILIKE 'LISTEN%'`
    })
  }, 180_000)

  test('every replica gives the same answer and sources, rag and cart', async () => {
    const key = await mintKey(set.url(A), admin, ['query'])
    let answered = 0
    for (const q of squadQuestions(QUESTIONS)) {
      for (const strategy of ['rag', 'cart'] as const) {
        const [a, b, c] = await Promise.all(
          [A, B, C].map((i) => ask(set.url(i), key.auth, base, q.question, strategy)),
        )
        expect(shown(b!)).toEqual(shown(a!))
        expect(shown(c!)).toEqual(shown(a!))
        if (a!.answered) answered++
      }
    }
    // The questions are about the base's articles: most are answered (the same everywhere, above).
    expect(answered).toBeGreaterThan(QUESTIONS)
  }, 120_000)

  test('a document deleted through B is never cited by A or C afterwards', async () => {
    const key = await mintKey(set.url(A), admin, ['query', 'ingest'])
    // A base of the articles once (no copy shares a passage), onboarded through A.
    const one = await baseWithFiles(set.url(A), admin, 'Deletion', squadFiles(1))
    const run = await train(set.url(A), admin, one)
    expect(await ended(() => set.url(A), admin, run.id)).toMatchObject({ status: 'succeeded' })
    // Questions whose answers are in one article, asked everywhere first (each replica warm on it).
    const qs = squadQuestions(QUESTIONS).filter((q) => q.document.endsWith('/Warsaw.txt'))
    expect(qs.length).toBeGreaterThan(2)
    const before: ChatResp[] = []
    for (const q of qs)
      for (const i of [A, B, C]) before.push(await ask(set.url(i), key.auth, one, q.question, 'rag'))
    const cited = new Set(
      before.flatMap((r) => r.sources.filter((s) => s.filename === 'Warsaw.txt').map((s) => s.document_id)),
    )
    expect(cited.size).toBe(1)
    const [doc] = [...cited]
    const passages = before.flatMap((r) =>
      r.sources.filter((s) => s.document_id === doc).map((s) => s.snippet),
    )
    const gone = await call(set.url(B), `/v1/corpora/${one}/documents/${doc}`, {
      auth: key.auth,
      method: 'DELETE',
    })
    expect(gone.status).toBe(204)
    // At once, and again: neither A nor C cites it, nor composes an answer of its passages.
    for (let pass = 0; pass < 2; pass++) {
      for (const q of qs) {
        for (const i of [A, C]) {
          for (const strategy of ['rag', 'cart'] as const) {
            const r = await ask(set.url(i), key.auth, one, q.question, strategy)
            expect(r.sources.map((s) => s.document_id)).not.toContain(doc)
            for (const p of passages) expect(r.answer).not.toContain(p)
          }
        }
      }
    }
  }, 120_000)

  // Last: it changes the admin's password (its session is renewed; the others end).
  test('a session ended by a password change through A, and a workspace suspended, are refused by C at once', async () => {
    const me = (auth: Auth) => call(set.url(C), '/v1/auth/me', { auth })
    for (let round = 0; round < 50; round++) {
      const password = round === 0 ? 'correct horse' : `correct horse ${round}`
      const login = await ok<{ access_token: string }>(
        fetch(`${set.url(A)}/v1/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ username: EMAIL, password }),
        }),
      )
      const other = { authorization: `Bearer ${login.access_token}` }
      expect((await me(other)).status).toBe(200)
      const changed = await ok<{ access_token: string }>(
        call(set.url(A), '/v1/auth/change-password', {
          auth: admin,
          json: { current_password: password, new_password: `correct horse ${round + 1}` },
        }),
      )
      admin = { authorization: `Bearer ${changed.access_token}` }
      const res = await me(other)
      if (res.status !== 401) throw new Error(`round ${round}: C answered ${res.status} to an ended session`)
    }
    // Suspended by an operator (the row's status; no route suspends), reactivated: C reads it on each request.
    const key = await mintKey(set.url(A), admin, ['query'])
    const ws = await set.sql`SELECT workspace_id FROM api_keys LIMIT 1`
    for (let round = 0; round < 20; round++) {
      expect((await call(set.url(C), '/v1/corpora', { auth: key.auth })).status).toBe(200)
      expect((await me(admin)).status).toBe(200)
      await set.sql`UPDATE workspaces SET status = 'suspended' WHERE id = ${ws[0].workspace_id}`
      expect((await call(set.url(C), '/v1/corpora', { auth: key.auth })).status).toBe(403)
      expect((await me(admin)).status).toBe(403)
      await set.sql`UPDATE workspaces SET status = 'active' WHERE id = ${ws[0].workspace_id}`
    }
  }, 120_000)
})
