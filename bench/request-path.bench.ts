// The cost of the request path in process (`app.handle`, no socket): µs a request for a few routes
// that do little beyond the shared pipeline (request id, auth, headers, JSON). Over HTTP a few µs
// drown in a shared machine's noise; in process they do not. Compare two trees side by side:
// `bun run bench/request-path.bench.ts /path/to/other/checkout` runs the other tree's app (its
// tests/helpers/app.ts) after this one, in turn, twice. Prints; asserts nothing.
import { resolve } from 'node:path'

const roots = [resolve(import.meta.dir, '..'), ...process.argv.slice(2).map((r) => resolve(r))]
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2)
const N = Number(process.env.BENCH_REQUESTS ?? 50_000)

async function measure(root: string): Promise<Record<string, number>> {
  const { testApp } = await import(`${root}/tests/helpers/app.ts`)
  const t = testApp({ env: { ENGRAM_PASSWORD_MEMORY_KIB: '1024', ENGRAM_LOG_LEVEL: 'silent' } })
  const json = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    t.request(path, { method: 'POST', json: body, headers }).then((r: Response) => r.json())
  const reg = await json('/v1/auth/register', {
    email: 'bench@example.com',
    password: 'correct horse',
    workspace_name: 'Bench',
    name: 'B',
  })
  const session = { authorization: `Bearer ${reg.access_token}` }
  const key = {
    authorization: `Bearer ${(await json('/v1/api-keys', { name: 'k', scopes: ['query'] }, session)).key}`,
  }
  const base = (await json('/v1/corpora', { name: 'B' }, session)).id
  const cases: [string, string, Record<string, string>][] = [
    ['GET /v1', '/v1', {}],
    ['GET /v1/corpora, no credential (401)', '/v1/corpora', {}],
    ['GET /v1/corpora/{id}, API key', `/v1/corpora/${base}`, key],
    ['GET /v1/corpora/{id}, session', `/v1/corpora/${base}`, session],
  ]
  const out: Record<string, number> = {}
  for (const [label, path, headers] of cases) {
    const send = () => t.handle(new Request(`http://engram.test${path}`, { headers }))
    for (let i = 0; i < N / 5; i++) await send()
    const t0 = performance.now()
    for (let i = 0; i < N; i++) await send()
    out[label] = ((performance.now() - t0) * 1000) / N
  }
  t.close()
  return out
}

console.log(`request path in process: ${N} requests a case after a warm-up, ${ROUNDS} rounds, µs a request`)
for (let round = 1; round <= ROUNDS; round++) {
  for (const root of roots) {
    const figures = await measure(root)
    for (const [label, us] of Object.entries(figures)) {
      console.log(`round ${round}  ${root.padEnd(24).slice(-24)}  ${label.padEnd(40)} ${us.toFixed(2)}`)
    }
  }
}
