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

/** Where an OpenAI-compatible server is and how to reach it. */
export interface ServerOptions {
  /** Base URL of an OpenAI-compatible server, including its version path (e.g. http://host:8000/v1). */
  url: string
  model: string
  apiKey?: string | null
  /** How long to wait for the response headers (and, when streaming, for each piece). */
  timeoutMs: number
  fetch?: typeof fetch
}

const retryAfter = (res: Response, fallback: number) => {
  const v = Number(res.headers.get('retry-after'))
  return Number.isFinite(v) && v > 0 ? Math.ceil(v) : fallback
}

/**
 * POSTs a JSON body to one of the server's endpoints. Unreachable, too slow, 429 or 5xx: an
 * LlmUnavailableError; any other refusal: an Error with the start of the server's answer.
 */
export async function postToServer(
  o: ServerOptions,
  path: string,
  body: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<Response> {
  const timeout = AbortSignal.timeout(o.timeoutMs)
  let res: Response
  try {
    res = await (o.fetch ?? fetch)(`${o.url.replace(/\/+$/, '')}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {}),
      },
      body: JSON.stringify({ model: o.model, ...body }),
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    })
  } catch (e) {
    if (signal?.aborted) throw e
    const why = timeout.aborted ? `gave no answer within ${o.timeoutMs} ms` : 'is unreachable'
    throw new LlmUnavailableError(`The model server ${why}.`, 5)
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
