import type { ChatMessage } from '../../src/platform/llm/openai-client'

/** How the stand-in behaves on its next requests. */
export type StandinMode = 'ok' | 'error500' | 'busy429' | 'hang' | 'break-mid-stream'

/**
 * A local stand-in for an OpenAI-compatible chat-completions server: real HTTP on 127.0.0.1,
 * real SSE chunks with `data: [DONE]`, and switchable failures. It answers with `answer(messages)`
 * split into word pieces, one token a piece: past `max_tokens` pieces the answer is cut and
 * `finish_reason` is "length", as a real server does.
 */
export function startLlmStandin(answer: (messages: ChatMessage[]) => string = () => 'The answer is 42.') {
  let mode: StandinMode = 'ok'
  const requests: { model: string; messages: ChatMessage[]; stream: boolean; max_tokens?: number }[] = []
  const hung: (() => void)[] = []
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      const url = new URL(req.url)
      if (req.method !== 'POST' || url.pathname !== '/v1/chat/completions')
        return new Response('no', { status: 404 })
      const body = (await req.json()) as (typeof requests)[number]
      requests.push(body)
      if (mode === 'error500') return Response.json({ error: { message: 'boom' } }, { status: 500 })
      if (mode === 'busy429')
        return Response.json({ error: { message: 'busy' } }, { status: 429, headers: { 'retry-after': '7' } })
      if (mode === 'hang')
        return new Promise<Response>((resolve) => hung.push(() => resolve(new Response('late'))))
      const all = answer(body.messages).match(/\S+\s*/g) ?? []
      const pieces = body.max_tokens ? all.slice(0, body.max_tokens) : all
      const finish = pieces.length < all.length ? 'length' : 'stop'
      const text = pieces.join('')
      if (!body.stream) {
        return Response.json({
          id: 'c1',
          object: 'chat.completion',
          choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: finish }],
        })
      }
      const breakMid = mode === 'break-mid-stream'
      const stream = new ReadableStream<Uint8Array>({
        start(c) {
          const enc = new TextEncoder()
          const send = (o: unknown) => c.enqueue(enc.encode(`data: ${JSON.stringify(o)}\n\n`))
          send({
            id: 'c1',
            object: 'chat.completion.chunk',
            choices: [{ index: 0, delta: { role: 'assistant' } }],
          })
          pieces.forEach((p, i) => {
            if (breakMid && i === 1) send({ error: { message: 'engine crashed' } })
            else
              send({
                id: 'c1',
                object: 'chat.completion.chunk',
                choices: [{ index: 0, delta: { content: p } }],
              })
          })
          send({
            id: 'c1',
            object: 'chat.completion.chunk',
            choices: [{ index: 0, delta: {}, finish_reason: finish }],
          })
          c.enqueue(enc.encode('data: [DONE]\n\n'))
          c.close()
        },
      })
      return new Response(stream, { headers: { 'content-type': 'text/event-stream' } })
    },
  })
  return {
    url: `http://127.0.0.1:${server.port}/v1`,
    requests,
    setMode(m: StandinMode) {
      mode = m
    },
    async stop() {
      for (const h of hung.splice(0)) h()
      await server.stop(true)
    },
  }
}
