/** How the stand-in behaves on its next requests. */
export type EmbedStandinMode = 'ok' | 'error500' | 'hang' | 'short' | 'not-numbers' | 'reversed'

/**
 * A local stand-in for an OpenAI-compatible embeddings server (`POST /v1/embeddings`): real HTTP on
 * 127.0.0.1, the real response shape, and switchable failures. Each input's vector is
 * `vectorOf(text)`; `reversed` sends the items in reverse order with their `index`. A request
 * `refuse` picks out is answered 500 whatever the mode.
 */
export function startEmbedStandin(
  vectorOf: (text: string) => number[],
  refuse?: (input: string[]) => boolean,
) {
  let mode: EmbedStandinMode = 'ok'
  const requests: { model: string; input: string[]; authorization: string | null }[] = []
  const hung: (() => void)[] = []
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      if (req.method !== 'POST' || new URL(req.url).pathname !== '/v1/embeddings')
        return new Response('no', { status: 404 })
      const body = (await req.json()) as { model: string; input: string[] }
      requests.push({ ...body, authorization: req.headers.get('authorization') })
      if (mode === 'error500' || refuse?.(body.input))
        return Response.json({ error: { message: 'boom' } }, { status: 500 })
      if (mode === 'hang')
        return new Promise<Response>((resolve) => hung.push(() => resolve(new Response('late'))))
      let data = body.input.map((t, index) => ({
        object: 'embedding',
        index,
        embedding: mode === 'not-numbers' ? vectorOf(t).map(String) : vectorOf(t),
      }))
      if (mode === 'short') data = data.slice(1)
      if (mode === 'reversed') data = data.reverse()
      return Response.json({ object: 'list', model: body.model, data })
    },
  })
  return {
    url: `http://127.0.0.1:${server.port}/v1`,
    requests,
    setMode(m: EmbedStandinMode) {
      mode = m
    },
    async stop() {
      for (const h of hung.splice(0)) h()
      await server.stop(true)
    },
  }
}
