/** One chat message in the OpenAI chat-completions format. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant'
  content: string
}

/** The model server is down, saturated or too slow: callers answer 503 with Retry-After. */
export class LlmUnavailableError extends Error {
  override name = 'LlmUnavailableError'
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message)
  }
}

export interface LlmClientOptions {
  /** Base URL of an OpenAI-compatible server, including its version path (e.g. http://host:8000/v1). */
  url: string
  model: string
  apiKey?: string | null
  /** How long to wait for the response headers and then for each streamed piece. */
  timeoutMs: number
  fetch?: typeof fetch
}

/** A request for one completion. */
export interface CompletionRequest {
  messages: ChatMessage[]
  maxTokens?: number
  temperature?: number
  signal?: AbortSignal
}

/** Client of an OpenAI-compatible chat-completions server (vLLM, llama.cpp server, Ollama). */
export interface LlmClient {
  /** Yields the answer's text pieces as the server streams them. */
  stream(req: CompletionRequest): AsyncGenerator<string>
  /** The whole answer at once. */
  complete(req: CompletionRequest): Promise<string>
}

const retryAfter = (res: Response, fallback: number) => {
  const v = Number(res.headers.get('retry-after'))
  return Number.isFinite(v) && v > 0 ? Math.ceil(v) : fallback
}

/** Builds the client; nothing is contacted until the first request. */
export function createLlmClient(o: LlmClientOptions): LlmClient {
  const doFetch = o.fetch ?? fetch
  const endpoint = `${o.url.replace(/\/+$/, '')}/chat/completions`

  async function open(req: CompletionRequest, stream: boolean): Promise<Response> {
    const timeout = AbortSignal.timeout(o.timeoutMs)
    const signal = req.signal ? AbortSignal.any([req.signal, timeout]) : timeout
    let res: Response
    try {
      res = await doFetch(endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {}),
        },
        body: JSON.stringify({
          model: o.model,
          messages: req.messages,
          stream,
          ...(req.maxTokens ? { max_tokens: req.maxTokens } : {}),
          temperature: req.temperature ?? 0.2,
        }),
        signal,
      })
    } catch (e) {
      if (req.signal?.aborted) throw e
      const why = timeout.aborted ? `no answer within ${o.timeoutMs} ms` : 'unreachable'
      throw new LlmUnavailableError(`The model server is ${why}.`, 5)
    }
    if (res.status === 429 || res.status >= 500) {
      await res.body?.cancel()
      throw new LlmUnavailableError(`The model server answered ${res.status}.`, retryAfter(res, 5))
    }
    if (!res.ok) {
      const text = (await res.text()).slice(0, 300)
      throw new Error(`The model server refused the request (${res.status}): ${text}`)
    }
    return res
  }

  async function* stream(req: CompletionRequest): AsyncGenerator<string> {
    const res = await open(req, true)
    if (!res.body) return
    const reader = res.body.getReader()
    const decoder = new TextDecoder()
    let buf = ''
    try {
      for (;;) {
        const { done, value } = await withTimeout(reader.read(), o.timeoutMs)
        if (done) break
        buf += decoder.decode(value, { stream: true })
        let nl = buf.indexOf('\n')
        while (nl >= 0) {
          const line = buf.slice(0, nl).trim()
          buf = buf.slice(nl + 1)
          nl = buf.indexOf('\n')
          if (!line.startsWith('data:')) continue
          const data = line.slice(5).trim()
          if (data === '[DONE]') return
          const chunk = JSON.parse(data) as {
            choices?: { delta?: { content?: string | null } }[]
            error?: unknown
          }
          if (chunk.error)
            throw new Error(`The model server failed mid-answer: ${JSON.stringify(chunk.error)}`)
          const piece = chunk.choices?.[0]?.delta?.content
          if (piece) yield piece
        }
      }
    } finally {
      await reader.cancel().catch(() => {})
    }
  }

  return {
    stream,
    async complete(req) {
      const res = await open(req, false)
      const body = (await res.json()) as { choices?: { message?: { content?: string } }[] }
      return body.choices?.[0]?.message?.content ?? ''
    },
  }
}

async function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const t = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new LlmUnavailableError(`The model server stalled for ${ms} ms.`, 5)), ms)
  })
  try {
    return await Promise.race([p, t])
  } finally {
    clearTimeout(timer)
  }
}
