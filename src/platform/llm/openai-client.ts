import { LlmUnavailableError, postToServer, type ServerOptions } from './server-request'

/** One chat message in the OpenAI chat-completions format. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant'
  content: string
}

/** Where the chat-completions server is; `timeoutMs` also bounds the wait for each streamed piece. */
export type LlmClientOptions = ServerOptions

/** A request for one completion. */
export interface CompletionRequest {
  messages: ChatMessage[]
  maxTokens?: number
  temperature?: number
  signal?: AbortSignal
}

/** A whole answer and why the model stopped ("stop", "length" when cut by max_tokens, null when not said). */
export interface Completion {
  text: string
  finishReason: string | null
}

/** Client of an OpenAI-compatible chat-completions server (vLLM, llama.cpp server, Ollama). */
export interface LlmClient {
  /** Yields the answer's text pieces as the server streams them; returns the finish reason. */
  stream(req: CompletionRequest): AsyncGenerator<string, string | null>
  /** The whole answer at once. */
  complete(req: CompletionRequest): Promise<string>
  /** The whole answer at once, with its finish reason. */
  completion(req: CompletionRequest): Promise<Completion>
}

/** Builds the client; nothing is contacted until the first request. */
export function createLlmClient(o: LlmClientOptions): LlmClient {
  function open(req: CompletionRequest, stream: boolean): Promise<Response> {
    const body = {
      messages: req.messages,
      stream,
      ...(req.maxTokens ? { max_tokens: req.maxTokens } : {}),
      temperature: req.temperature ?? 0.2,
    }
    return postToServer(o, '/chat/completions', body, req.signal)
  }

  async function* stream(req: CompletionRequest): AsyncGenerator<string, string | null> {
    const res = await open(req, true)
    if (!res.body) return null
    const reader = res.body.getReader()
    const decoder = new TextDecoder()
    let buf = ''
    let finish: string | null = null
    try {
      for (;;) {
        const { done, value } = await withTimeout(reader.read(), o.timeoutMs)
        if (done) return finish
        buf += decoder.decode(value, { stream: true })
        let nl = buf.indexOf('\n')
        while (nl >= 0) {
          const line = buf.slice(0, nl).trim()
          buf = buf.slice(nl + 1)
          nl = buf.indexOf('\n')
          if (!line.startsWith('data:')) continue
          const data = line.slice(5).trim()
          if (data === '[DONE]') return finish
          const chunk = JSON.parse(data) as {
            choices?: { delta?: { content?: string | null }; finish_reason?: string | null }[]
            error?: unknown
          }
          if (chunk.error)
            throw new Error(`The model server failed mid-answer: ${JSON.stringify(chunk.error)}`)
          finish = chunk.choices?.[0]?.finish_reason ?? finish
          const piece = chunk.choices?.[0]?.delta?.content
          if (piece) yield piece
        }
      }
    } finally {
      await reader.cancel().catch(() => {})
    }
  }

  async function completion(req: CompletionRequest): Promise<Completion> {
    const res = await open(req, false)
    const body = (await res.json()) as {
      choices?: { message?: { content?: string }; finish_reason?: string | null }[]
    }
    const choice = body.choices?.[0]
    return { text: choice?.message?.content ?? '', finishReason: choice?.finish_reason ?? null }
  }

  return {
    stream,
    completion,
    complete: async (req) => (await completion(req)).text,
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
