// `npm run bench mcp`: latency of one MCP tool call (query_base) over the hosted Streamable HTTP
// server, side by side with the same question on the REST routes. The squad-dev articles are
// onboarded into one base; each question is asked once per path, the paths interleaved so they see
// the same machine load. Prints p50 and p99; asserts nothing.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { onboardBase, pct, squadArticles, squadQuestions, startBench } from './lib/harness'

const QUESTIONS = Number(process.env.BENCH_QUESTIONS ?? 300)
const WARMUP = 30

const questions = squadQuestions()
const sample = Array.from(
  { length: QUESTIONS + WARMUP },
  (_, i) => questions[(i * 7919) % questions.length]!.question,
)

const b = await startBench()
const base = await onboardBase(b, 'squad', squadArticles())
const auth = { authorization: `Bearer ${b.queryKey}` }
const json = { 'content-type': 'application/json', ...auth }

const client = new Client({ name: 'bench', version: '1' })
await client.connect(
  new StreamableHTTPClientTransport(new URL(`${b.url}/mcp-http/`), { requestInit: { headers: auth } }),
)

/** One question on one path; returns milliseconds, throws on a failure. */
type Path = (question: string) => Promise<void>
const rest =
  (path: string): Path =>
  async (question) => {
    const res = await fetch(`${b.url}${path}`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ question, strategy: 'cart', k: 3 }),
    })
    await res.arrayBuffer()
    if (!res.ok) throw new Error(`${path}: ${res.status}`)
  }
const args = (question: string) => ({ base_id: base.id, question, strategy: 'cart', k: 3 })
const sdk: Path = async (question) => {
  const r = await client.callTool({ name: 'query_base', arguments: args(question) })
  if (r.isError) throw new Error(JSON.stringify(r.content))
}
let rpcId = 0
const rawRpc: Path = async (question) => {
  const res = await fetch(`${b.url}/mcp-http/`, {
    method: 'POST',
    headers: { ...json, accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: ++rpcId,
      method: 'tools/call',
      params: { name: 'query_base', arguments: args(question) },
    }),
  })
  const body = (await res.json()) as { result?: { isError?: boolean } }
  if (!res.ok || !body.result || body.result.isError) throw new Error(`mcp-http: ${res.status}`)
}

const paths: [string, Path][] = [
  ['REST POST /v1/corpora/{id}/chat', rest(`/v1/corpora/${base.id}/chat`)],
  ['REST POST /v1/mcp/{id}/query', rest(`/v1/mcp/${base.id}/query`)],
  ['MCP tools/call query_base (SDK client)', sdk],
  ['MCP tools/call query_base (raw JSON-RPC POST)', rawRpc],
]
const times = new Map<string, number[]>(paths.map(([name]) => [name, []]))
for (const [i, question] of sample.entries()) {
  // Rotate the order so no path always runs first after the previous question.
  for (let j = 0; j < paths.length; j++) {
    const [name, run] = paths[(i + j) % paths.length]!
    const t0 = performance.now()
    await run(question)
    if (i >= WARMUP) times.get(name)!.push(performance.now() - t0)
  }
}

console.log(
  `base: ${squadArticles().length} articles, ${base.mb.toFixed(2)} MB; ${QUESTIONS} questions per path, sequential, one client, strategy cart, k 3`,
)
console.log('| path | p50 ms | p99 ms | mean ms |')
console.log('| --- | --- | --- | --- |')
for (const [name] of paths) {
  const t = times.get(name)!.sort((x, y) => x - y)
  const mean = t.reduce((a, x) => a + x, 0) / t.length
  console.log(`| ${name} | ${pct(t, 0.5).toFixed(2)} | ${pct(t, 0.99).toFixed(2)} | ${mean.toFixed(2)} |`)
}
await client.close()
await b.stop()
